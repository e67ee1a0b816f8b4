// The body of POST /jobs: one job, an array of jobs, or { jobs: [...] }.
// Validated with valibot: small and tree-shakeable, so the Worker bundle
// carries only the few validators used here.
import * as v from "valibot";
import type { BulkJob } from "../src/index.js";

const MAX_JOBS = 1_000;

const job = v.strictObject({
  name: v.pipe(v.string("name must be a string"), v.minLength(1, "name must not be empty")),
  args: v.optional(v.array(v.unknown(), "args must be an array"), []),
  queue: v.optional(v.pipe(v.string("queue must be a string"), v.regex(/^\S+$/, "queue must be a name without spaces"))),
  // Your own id: the same jid again within the id window pushes nothing (safe retries).
  jid: v.optional(v.pipe(v.string("jid must be a string"), v.regex(/^\S{1,128}$/, "jid must be 1–128 characters without spaces"))),
  delayMs: v.optional(v.pipe(v.number("delayMs must be a number"), v.finite("delayMs must be finite"), v.minValue(0, "delayMs must be ≥ 0"))),
  at: v.optional(
    v.union(
      [v.number(), v.pipe(v.string(), v.check((s) => !Number.isNaN(Date.parse(s)), "at must be a date"))],
      "at must be a date string or epoch milliseconds",
    ),
  ),
  retry: v.optional(v.union([v.boolean(), v.pipe(v.number(), v.integer(), v.minValue(0))], "retry must be a boolean or a count ≥ 0")),
});

const jobs = v.pipe(v.array(job), v.minLength(1, "no jobs given"), v.maxLength(MAX_JOBS, `at most ${MAX_JOBS} jobs a request`));
const wrapped = v.strictObject({ jobs });
const body = v.union([job, jobs, wrapped]);

export type JobsBody = { ok: true; jobs: BulkJob[]; single: boolean } | { ok: false; error: string };

export function readJobsBody(input: unknown): JobsBody {
  // Validate against the one shape the body claims to be, so the error
  // names what is wrong in it rather than "matches no shape".
  const isObject = typeof input === "object" && input !== null && !Array.isArray(input);
  const single = isObject && "name" in input;
  const schema = single ? job : Array.isArray(input) ? jobs : isObject && "jobs" in input ? wrapped : body;
  const parsed = v.safeParse(schema, input);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = v.getDotPath(issue);
    return { ok: false, error: path ? `${path}: ${issue.message}` : issue.message };
  }
  const output = parsed.output as v.InferOutput<typeof body>;
  const list = Array.isArray(output) ? output : "jobs" in output ? output.jobs : [output];
  return {
    ok: true,
    single,
    jobs: list.map(({ at, ...rest }) => ({ ...rest, ...(at === undefined ? {} : { at: new Date(at) }) })),
  };
}
