// A recurring job's spec in words, as an operator reads it: "every day at
// 09:00 Europe/Berlin", "every 5 min". The common cron shapes are said in
// words; any other expression is shown as it is, with its time zone.
import type { ScheduleSpec } from "../index.js";

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const num = /^\d+$/;
const two = (n: string) => n.padStart(2, "0");

/** An interval in ms as "every 30 s", "every 5 min", "every 2 h", "every 1 d". */
function every(ms: number): string {
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["min", 60_000],
    ["s", 1_000],
  ] as const)
    if (ms % size === 0) return `every ${ms / size} ${unit}`;
  return `every ${ms} ms`;
}

function cronWords(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length === 6 && fields[0] === "0") fields.shift(); // seconds first, at 0
  if (fields.length !== 5) return undefined;
  const [minute, hour, day, month, weekday] = fields as [string, string, string, string, string];
  const at = num.test(minute) && num.test(hour) ? `at ${two(hour)}:${two(minute)}` : undefined;
  if (month !== "*") return undefined;
  if (at && day === "*" && weekday === "*") return `every day ${at}`;
  if (at && day === "*" && weekday === "1-5") return `every weekday ${at}`;
  if (at && day === "*" && num.test(weekday) && Number(weekday) <= 7) return `every ${DAYS[Number(weekday) % 7]} ${at}`;
  if (at && num.test(day) && weekday === "*") return `on day ${day} of every month ${at}`;
  if (day !== "*" || weekday !== "*") return undefined;
  if (num.test(minute) && hour === "*") return `every hour at :${two(minute)}`;
  if (minute === "*" && hour === "*") return "every minute";
  const step = /^\*\/(\d+)$/.exec(minute);
  if (step && hour === "*") return `every ${step[1]} min`;
  return undefined;
}

/** The spec in words, with the time zone a cron is read in (UTC by default). */
export function specInWords(spec: ScheduleSpec): string {
  if (typeof spec !== "object" || spec === null) return JSON.stringify(spec) ?? "";
  if (typeof spec.every === "number") return every(spec.every);
  if (typeof spec.cron !== "string") return JSON.stringify(spec);
  return `${cronWords(spec.cron) ?? `cron ${spec.cron}`} ${spec.timezone ?? "UTC"}`;
}
