// The body of POST /jobs: one job, an array of jobs, or { jobs: [...] }.
// A job is plain ({ name, args, … }) or ordered ({ name, id, payload,
// score?, delayMs? }: it has an id or a payload); one request carries one
// kind, so that every job is checked before any is written.
// Validated with valibot: small and tree-shakeable, so the Worker bundle
// carries only the few validators used here.
import * as v from "valibot";
import type { BulkJob, OrderedBulkJob } from "../index.js";
import { nearestField } from "./nearest-field.js";

const MAX_JOBS = 1_000;

const name = v.pipe(v.string("name must be a string"), v.minLength(1, "name must not be empty"));
const delayMs = v.optional(
  v.pipe(
    v.number("delayMs must be a number"),
    v.finite("delayMs must be finite"),
    v.minValue(0, "delayMs must be ≥ 0"),
  ),
);

const job = v.strictObject({
  name,
  // Required (missingArgs), as enqueue's signature requires them: a body that forgets args must not run the handler with [].
  args: v.optional(v.array(v.unknown(), "args must be an array")),
  queue: v.optional(
    v.pipe(v.string("queue must be a string"), v.regex(/^\S+$/, "queue must be a name without spaces")),
  ),
  // Your own id: the same jid again within the id window pushes nothing (safe retries).
  jid: v.optional(
    v.pipe(v.string("jid must be a string"), v.regex(/^\S{1,128}$/, "jid must be 1–128 characters without spaces")),
  ),
  delayMs,
  at: v.optional(
    v.union(
      [
        v.number(),
        v.pipe(
          v.string(),
          v.check((s) => !Number.isNaN(Date.parse(s)), "at must be a date"),
        ),
      ],
      "at must be a date string or epoch milliseconds",
    ),
  ),
  retry: v.optional(
    v.union([v.boolean(), v.pipe(v.number(), v.integer(), v.minValue(0))], "retry must be a boolean or a count ≥ 0"),
  ),
  // Expiry (src/expiry/): never started after this many ms; enqueue checks the range.
  expiresInMs: v.optional(v.number("expiresInMs must be a number")),
  // Order (src/order/): priority within the queue, and the group for fair shares.
  priority: v.optional(
    v.pipe(
      v.number("priority must be a number"),
      v.integer("priority must be an integer"),
      v.minValue(-1_000, "priority must be ≥ -1000"),
      v.maxValue(1_000, "priority must be ≤ 1000"),
    ),
  ),
  group: v.optional(
    v.pipe(
      v.string("group must be a string"),
      v.regex(/^\S{1,256}$/, "group must be 1–256 characters without whitespace"),
    ),
  ),
  // Flow control (src/flow/): unique execution by the job's uniqueKey.
  unique: v.optional(
    v.picklist(
      ["while-executing", "until-executed", "coalesce"],
      "unique must be while-executing, until-executed or coalesce",
    ),
  ),
});

const orderedJob = v.strictObject({
  name,
  id: v.pipe(
    v.string("id must be a string"),
    v.minLength(1, "id must not be empty"),
    v.maxLength(1_024, "id must be at most 1,024 characters"),
  ),
  payload: v.custom<unknown>((value) => value !== undefined, "payload is required (any JSON value)"),
  score: v.optional(v.pipe(v.number("score must be a number"), v.finite("score must be finite"))),
  delayMs,
});

const many = <T extends v.GenericSchema>(item: T) =>
  v.pipe(v.array(item), v.minLength(1, "no jobs given"), v.maxLength(MAX_JOBS, `at most ${MAX_JOBS} jobs a request`));
const schemas = (item: typeof job | typeof orderedJob) => ({
  one: item,
  list: many(item),
  wrapped: v.strictObject({ jobs: many(item) }),
});
const plainSchemas = schemas(job);
const orderedSchemas = schemas(orderedJob);
const body = v.union([job, plainSchemas.list, plainSchemas.wrapped]);

export type JobsBody =
  | { ok: true; single: boolean; jobs: BulkJob[]; ordered: OrderedBulkJob[] }
  | { ok: false; error: string };

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
const isOrdered = (x: unknown) => isObject(x) && ("id" in x || "payload" in x);

/** The first field of the body that its shape does not take, said with the nearest known one; undefined if none. */
function unknownField(input: unknown, items: unknown[], ordered: boolean, single: boolean): string | undefined {
  if (!single && !Array.isArray(input) && isObject(input)) {
    const extra = Object.keys(input).find((k) => k !== "jobs");
    if (extra !== undefined) return unknownMessage(extra, ["jobs"]);
  }
  const known = Object.keys((ordered ? orderedJob : job).entries);
  for (const [i, item] of items.entries()) {
    if (!isObject(item)) continue;
    const extra = Object.keys(item).find((k) => !known.includes(k));
    if (extra === undefined) continue;
    const where = single ? "" : Array.isArray(input) ? `${i}.` : `jobs.${i}.`;
    return `${where}${unknownMessage(extra, known)}`;
  }
  return undefined;
}

function unknownMessage(field: string, known: string[]): string {
  const near = nearestField(field, known);
  const hint = near === undefined ? "" : `; did you mean ${near}?`;
  return `${JSON.stringify(field)} is not a field of a job${hint} (the fields are ${known.join(", ")})`;
}

export function readJobsBody(input: unknown): JobsBody {
  // Validate against the one shape the body claims to be, so the error
  // names what is wrong in it rather than "matches no shape".
  const single = isObject(input) && "name" in input;
  const wrapped = isObject(input) && "jobs" in input;
  const items = single
    ? [input]
    : Array.isArray(input)
      ? input
      : wrapped && Array.isArray(input.jobs)
        ? input.jobs
        : [];
  const ordered = items.length > 0 && items.every(isOrdered);
  if (!ordered && items.some(isOrdered)) {
    return {
      ok: false,
      error: "a request carries plain jobs ({ name, args }) or ordered jobs ({ name, id, payload }), not both",
    };
  }
  const unknown = unknownField(input, items, ordered, single);
  if (unknown !== undefined) return { ok: false, error: unknown };
  const s = ordered ? orderedSchemas : plainSchemas;
  const schema = single ? s.one : Array.isArray(input) ? s.list : wrapped ? s.wrapped : body;
  const parsed = v.safeParse(schema, input);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = v.getDotPath(issue);
    return { ok: false, error: path ? `${path}: ${issue.message}` : issue.message };
  }
  const output = parsed.output as unknown;
  const list = (
    Array.isArray(output) ? output : isObject(output) && "jobs" in output ? output.jobs : [output]
  ) as unknown[];
  if (ordered) return { ok: true, single, jobs: [], ordered: list as OrderedBulkJob[] };
  const plain = list as v.InferOutput<typeof job>[];
  const missing = plain.findIndex((j) => j.args === undefined);
  if (missing >= 0) {
    const where = single ? "" : Array.isArray(input) ? `${missing}.` : `jobs.${missing}.`;
    return { ok: false, error: `${where}args: args is required: the job's args as a JSON array ([] for none)` };
  }
  return {
    ok: true,
    single,
    jobs: plain.map(({ at, args, ...rest }) => ({
      ...rest,
      args: args!,
      ...(at === undefined ? {} : { at: new Date(at) }),
    })),
    ordered: [],
  };
}
