// Jobs the ticks that run cannot start, as stats() reports them: read from
// what ticks recorded (lib/tick/record-unstartable.lua) and judged against
// the budgets recent ticks ran with, so a job that a larger tick will start
// is not named. Records older than the window are what ticks no longer meet.
import { STALE_MS } from "./warnings.js";

/** Why a tick could not start a job (what tick/unstartable.ts records). */
export type UnstartableReason = "timeout" | "unknown";

/** Jobs of one name that no tick running lately can start ({@link Stats.unstartable}). */
export interface UnstartableJobs {
  /** The job name (its `class`). */
  name: string;
  /**
   * `timeout`: its timeoutMs is above the whole budget of every tick that served its queue lately;
   * `unknown`: a tick that fetched it does not declare the name (it fails as TickqUnknownJob and is retried).
   */
  reason: UnstartableReason;
  /** The queue its jobs wait in. */
  queue: string;
  /** How many the last tick that met them could not start. */
  count: number;
  /** The job's timeoutMs (`timeout` only). */
  timeoutMs?: number;
  /** The largest budget of a tick that served the queue lately (`timeout` only). */
  budgetMs?: number;
  /** When a tick last met them (epoch ms, Redis' clock). */
  lastSeenAt: number;
}

export interface UnstartableInput {
  nowMs: number;
  /** Job name → "<at> <count> <reason> <limit ms> <budget ms> <queue>". */
  records: readonly { name: string; record: string }[];
  /** Queue → "<budget ms> <at>". */
  budgets: readonly { queue: string; record: string }[];
}

export function readUnstartable({ nowMs, records, budgets }: UnstartableInput): UnstartableJobs[] {
  const fresh = (at: number) => nowMs - at < STALE_MS;
  const budgetOf = new Map<string, number>();
  for (const { queue, record } of budgets) {
    const [budget, at] = record.split(" ").map(Number);
    if (budget !== undefined && at !== undefined && fresh(at)) budgetOf.set(queue, budget);
  }
  const out: UnstartableJobs[] = [];
  for (const { name, record } of records) {
    const match = /^(\d+) (\d+) (timeout|unknown) (\d+) (\d+) (\S+)$/.exec(record);
    if (!match) continue; // written by a later release: its reader says what it means
    const [, at, count, reason, limit, budget, queue] = match as unknown as [
      string,
      string,
      string,
      UnstartableReason,
      string,
      string,
      string,
    ];
    if (!fresh(Number(at))) continue;
    const base = { name, reason, queue, count: Number(count), lastSeenAt: Number(at) };
    if (reason === "unknown") {
      out.push(base);
      continue;
    }
    const largest = Math.max(Number(budget), budgetOf.get(queue) ?? 0);
    if (Number(limit) > largest) out.push({ ...base, timeoutMs: Number(limit), budgetMs: largest });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Quoted, with every control character (C0, DEL, C1) escaped: a name may come from anywhere. */
function quoted(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function unstartableWarning(u: UnstartableJobs): string {
  const what = `${u.count} job(s) of ${quoted(u.name)} in queue ${quoted(u.queue)}`;
  if (u.reason === "timeout") {
    return (
      `${what} cannot start: its timeoutMs ${u.timeoutMs} is above the budget of every tick that served the queue lately ` +
      `(at most ${u.budgetMs} ms). Raise the tick budget (tick({ budgetMs }), TICKQ_TICK_BUDGET_MS) or lower the job's timeoutMs.`
    );
  }
  return (
    `${what} were fetched by a tick that does not declare ${quoted(u.name)}: they fail as TickqUnknownJob and are retried. ` +
    `Declare the job in every deployment whose ticks serve queue ${quoted(u.queue)}.`
  );
}
