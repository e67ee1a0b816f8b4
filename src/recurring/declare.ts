// Reads `createTickq({ schedules })` once: every spec is checked (a bad cron
// expression, time zone, job, queue or policy, or a cron schedule with no
// `cron` parser, is a TickqError BAD_OPTIONS naming the schedule; args its
// job's schema refuses, or that JSON would not carry, are BAD_ARGS),
// normalized, fingerprinted, and given its timing and a job template. The
// digest of the whole declaration is what begin compares with Redis' copy,
// so an unchanged declaration costs a tick nothing.
import { TickqError } from "../errors.js";
import { encodeNewJob } from "../job/codec.js";
import { orderFields, type OrderFields } from "../order/fields.js";
import { unfaithfulJson } from "../job/json-value.js";
import { checkBySchema } from "../job/schema-check.js";
import { isPrintableName } from "../names.js";
import { terminalJson } from "../printable.js";
import type { JobDefinition, JobRegistry } from "../job/definition.js";
import { fingerprint } from "./hash.js";
import { everyTiming } from "./timing.js";
import type { CronParser, MissedPolicy, ScheduleSpec, Schedules, Timing } from "./types.js";

/** A schedule as the tick uses it. */
export interface Declared {
  name: string;
  /** Normalized: defaults filled in; what Redis stores for listing. */
  spec: ScheduleSpec;
  timing: Timing;
  /** Fingerprint of when it runs (cron + time zone, or every): a change resets its next slot. */
  timingFp: string;
  /** Fingerprint of the whole spec: a change of job, args or queue applies from the next slot. */
  fp: string;
  queue: string;
  missed: MissedPolicy;
  maxMissed: number;
  /** The job JSON of one slot (jid "name:slot"), `}` last, without created_at / enqueued_at. */
  jobFor(slot: number): string;
}

export interface RecurringSet {
  list: Declared[];
  byName: Map<string, Declared>;
  /** Fingerprint of the declaration; "" when nothing is declared. */
  digest: string;
  /**
   * Added to Redis' time wherever schedules read it. Always 0, except in
   * tests and the benchmark, which move the schedule clock to simulate hours.
   */
  shiftMs: number;
}

const NAME = /^[A-Za-z0-9_.:-]{1,100}$/;
const POLICIES: readonly MissedPolicy[] = ["latest", "all", "none"];

export function declareRecurring(
  schedules: Schedules | undefined,
  jobs: JobRegistry,
  cron: CronParser | undefined,
): RecurringSet {
  checkCronParser(schedules, cron);
  const parse = cron && parsedOnce(cron);
  const list = Object.entries(schedules ?? {}).map(([name, spec]) => declareOne(name, spec, jobs, parse));
  const byName = new Map(list.map((d) => [d.name, d]));
  const lines = list.map((d) => `${d.name} ${d.timingFp} ${d.fp}`).sort();
  return { list, byName, digest: lines.length === 0 ? "" : fingerprint(lines.join("\n")), shiftMs: 0 };
}

/**
 * Fails fast where cron parsing was left out (the Worker and Vercel entries
 * leave croner out unless given `cron`): a cron schedule without a parser
 * is refused, naming the fix. `every` schedules need none.
 */
export function checkCronParser(schedules: Schedules | undefined, cron: CronParser | undefined): void {
  if (schedules !== undefined && (typeof schedules !== "object" || schedules === null || Array.isArray(schedules))) {
    throw new TickqError("BAD_OPTIONS", "schedules must be an object of schedule name → { cron | every, job, … }");
  }
  if (cron !== undefined && typeof cron !== "function") {
    throw new TickqError("BAD_OPTIONS", 'cron must be a cron parser: import { cron } from "tickq/cron"');
  }
  const first = Object.entries(schedules ?? {}).find(
    ([, spec]) => typeof spec === "object" && spec !== null && spec.cron !== undefined,
  );
  if (first && cron === undefined) {
    throw new TickqError(
      "BAD_OPTIONS",
      `schedules.${first[0]}: a cron schedule needs a cron parser: import { cron } from "tickq/cron" and pass \`cron\` with the options (\`every\` schedules need none)`,
    );
  }
}

/** Schedules with the same expression and zone share one Timing (and the tick's memo of its slots). */
function parsedOnce(cron: CronParser): CronParser {
  const timings = new Map<string, Timing>();
  return (pattern, timezone) => {
    const key = JSON.stringify([pattern, timezone ?? "UTC"]);
    const timing = timings.get(key) ?? cron(pattern, timezone);
    timings.set(key, timing);
    return timing;
  };
}

/** `cron` is undefined only when no schedule has a cron expression (checkCronParser). */
function declareOne(name: string, spec: ScheduleSpec, jobs: JobRegistry, cron: CronParser | undefined): Declared {
  const bad = (why: string): never => {
    throw new TickqError("BAD_OPTIONS", `schedules.${name}: ${why}`);
  };
  if (!NAME.test(name))
    bad("a schedule name is 1–100 characters of A-Z a-z 0-9 _ . : - (it becomes part of each job's jid)");
  if (typeof spec !== "object" || spec === null) bad("must be an object { cron | every, job, … }");
  const hasCron = spec.cron !== undefined;
  const hasEvery = spec.every !== undefined;
  if (hasCron === hasEvery)
    bad(hasCron ? "give either `cron` or `every`, not both" : "needs `cron` (an expression) or `every` (ms)");

  const entry = Object.hasOwn(jobs, spec.job) ? jobs[spec.job] : undefined;
  if (entry === undefined) {
    bad(
      `unknown job ${JSON.stringify(spec.job)}: register it in createTickq({ jobs }) (registered: ${Object.keys(jobs).join(", ") || "none"})`,
    );
  }
  const definition: JobDefinition<never> = typeof entry === "function" ? { perform: entry } : entry!;
  const queue = spec.queue ?? definition.queue ?? "default";
  if (!isPrintableName(queue))
    bad(`queue must be a non-empty name without spaces or control characters, got ${terminalJson(queue)}`);
  if (spec.args !== undefined && !Array.isArray(spec.args)) bad("args must be an array");
  const args = checkedArgs(name, spec.job, spec.args ?? [], definition);
  const missed = spec.missed ?? "latest";
  if (!POLICIES.includes(missed)) bad(`missed must be "latest", "all" or "none", got ${JSON.stringify(missed)}`);
  const maxMissed = spec.maxMissed ?? 100;
  if (!Number.isInteger(maxMissed) || maxMissed < 1 || maxMissed > 10_000)
    bad("maxMissed must be an integer from 1 to 10,000");

  let timing: Timing;
  let when: Pick<ScheduleSpec, "cron" | "every" | "timezone">;
  if (hasCron) {
    if (typeof spec.cron !== "string") bad('cron must be a string such as "0 3 * * *"');
    if (spec.timezone !== undefined && !validTimeZone(spec.timezone))
      bad(`unknown time zone ${JSON.stringify(spec.timezone)} (an IANA name such as "Europe/Berlin")`);
    when = spec.timezone === undefined ? { cron: spec.cron } : { cron: spec.cron, timezone: spec.timezone };
    timing = parseCron(cron!, spec.cron!, spec.timezone, bad);
    if (timing.after(Date.now()) === null) bad(`cron ${JSON.stringify(spec.cron)} never runs again`);
  } else {
    if (!Number.isInteger(spec.every) || spec.every! < 1_000)
      bad(`every must be a whole number of ms ≥ 1,000, got ${String(spec.every)}`);
    when = { every: spec.every };
    timing = everyTiming(spec.every!);
  }

  const retry = definition.retry ?? true;
  let order: OrderFields | undefined;
  try {
    encodeNewJob({ class: spec.job, args, jid: name, queue, retry }); // throws for args Redis' JSON reader refuses
    // The job's default priority and its group of these args (src/order/), once for every slot.
    order = orderFields(spec.job, definition, args, {});
  } catch (error) {
    bad((error as Error).message);
  }
  // A template split where the jid goes: each slot costs one string join.
  const head = `${JSON.stringify({ class: spec.job, args }).slice(0, -1)},"jid":`;
  const tail = `,${JSON.stringify({ queue, retry, ...order, schedule: name }).slice(1)}`;
  const normalized = { ...when, job: spec.job, args, queue, missed, maxMissed } as ScheduleSpec;
  const timingFp = fingerprint(JSON.stringify(when));
  return {
    name,
    spec: normalized,
    timing,
    timingFp,
    fp: fingerprint(JSON.stringify(normalized)),
    queue,
    missed,
    maxMissed,
    jobFor: (slot) => `${head}${JSON.stringify(`${name}:${slot}`)}${tail}`,
  };
}

/**
 * A schedule's args as its job's schema outputs them, checked once here
 * rather than at every slot. createTickq cannot wait, so the schema of a
 * job a schedule runs must validate synchronously.
 */
function checkedArgs(name: string, job: string, args: unknown[], definition: JobDefinition<never>): unknown[] {
  let output: unknown = args;
  if (definition.schema) {
    output = checkBySchema(definition.schema, args, `schedules.${name} (job "${job}")`, "args");
    if (output instanceof Promise) {
      output.catch(() => {}); // its verdict is not awaited: the schedule is refused below either way
      throw new TickqError(
        "BAD_OPTIONS",
        `schedules.${name}: job "${job}"'s schema validates asynchronously, and a schedule's args are checked when createTickq declares it, which cannot wait: give that job a synchronous schema`,
      );
    }
    if (!Array.isArray(output))
      throw new TickqError(
        "BAD_ARGS",
        `schedules.${name} (job "${job}"): its schema's output must be an array of args`,
      );
  }
  const problem = unfaithfulJson(output, "args");
  if (problem) throw new TickqError("BAD_ARGS", `schedules.${name} (job "${job}"): ${problem}`);
  return output as unknown[];
}

function parseCron(parse: CronParser, cron: string, timezone: string | undefined, bad: (why: string) => never): Timing {
  try {
    return parse(cron, timezone);
  } catch (error) {
    return bad(`invalid cron expression ${JSON.stringify(cron)}: ${(error as Error).message}`);
  }
}

function validTimeZone(zone: unknown): boolean {
  if (typeof zone !== "string" || zone === "") return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
