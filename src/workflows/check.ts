// tq.workflows.check: would this deployment replay the runs in flight? Each
// live run's stored history (its completed steps and where it is parked) is
// replayed through the `step` of an execution (replay.ts) against the code of
// the run's version: completed steps answer their stored results, any other
// step stops the replay there, so no step function runs and nothing is
// written. A run is incompatible when the replay breaks the determinism
// guard, throws, returns without reaching a completed step, does not reach a
// parked step where it parked, or when the code for its version is missing.
import { TickqError } from "../errors.js";
import type { WorkflowsRuntime as Runtime } from "./runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { describeError } from "./describe.js";
import { readStepRecords } from "./records.js";
import { workflowDefinition } from "./registry.js";
import { replay } from "./replay.js";
import type { WorkflowCheck, WorkflowCheckOptions, WorkflowCode, WorkflowIncompatibility } from "./types.js";
import { codeOf, currentVersion, storedVersion } from "./versions.js";

const DEFAULT_LIMIT = 1_000;
const MAX_LIMIT = 10_000;
/** How long a replay may go without reaching a step before the run is reported (its code awaits something else). */
const REPLAY_MS = 2_000;

type LiveRun = { id: string; name: string; version: string; input: string; steps: string[]; parks: string[] };

const never = new Promise<never>(() => {});
const macrotask: () => Promise<void> =
  typeof setImmediate === "function"
    ? () => new Promise((resolve) => setImmediate(resolve))
    : () => new Promise((resolve) => setTimeout(resolve, 0));

export async function checkRuns(runtime: Runtime, options: WorkflowCheckOptions = {}): Promise<WorkflowCheck> {
  const { name = "", limit = DEFAULT_LIMIT, cursor } = options;
  if (typeof name !== "string") throw new TickqError("BAD_ARGS", "workflows.check: name must be a string");
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new TickqError(
      "BAD_ARGS",
      `workflows.check: limit must be a whole number from 1 to ${MAX_LIMIT}, got ${String(limit)}`,
    );
  }
  let offset = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isInteger(offset) || offset < 0)
    throw new TickqError("BAD_CURSOR", `workflows.check: bad cursor ${JSON.stringify(cursor)}`);
  const answer: WorkflowCheck = { checked: 0, incompatible: [] };
  const index = `${runtime.prefix}wf:all`;
  while (answer.checked < limit) {
    const page = await runCall(
      runtime,
      protocol.workflow_live,
      { index },
      { name, offset, limit: Math.min(500, limit - answer.checked) },
    );
    for (const run of page.runs) {
      answer.checked++;
      const problem = await checkRun(runtime, run);
      if (problem) answer.incompatible.push(problem);
    }
    if (page.next < 0) return answer;
    offset = page.next;
  }
  return { ...answer, cursor: String(offset) };
}

async function checkRun(runtime: Runtime, run: LiveRun): Promise<WorkflowIncompatibility | undefined> {
  const version = storedVersion(run.version);
  const base = { runId: run.id, name: run.name, version };
  const definition = workflowDefinition(runtime.workflows, run.name);
  if (!definition) return { ...base, reason: `this code does not declare workflow "${run.name}"` };
  const code = codeOf(definition, version);
  if (!code) {
    return {
      ...base,
      reason: `this code has no version ${version} of workflow "${run.name}" (it has version ${currentVersion(definition)}): keep its run under \`versions: { ${version}: … }\` until its runs end`,
    };
  }
  const problem = await replayHistory(code, run);
  return problem && { ...base, ...problem };
}

/** Replays the run's history against `code`: undefined when it replays, else the step and reason it would fail on. */
async function replayHistory(
  code: WorkflowCode<never, unknown>,
  run: LiveRun,
): Promise<{ step?: string; reason: string } | undefined> {
  const records = readStepRecords(run.steps);
  const r = replay(records, () => never);
  let settled: { ok: true } | { ok: false; error: unknown } | undefined;
  Promise.resolve()
    .then(() => code(JSON.parse(run.input) as never, r.step))
    .then(
      () => void (settled = { ok: true }),
      (error: unknown) => void (settled = { ok: false, error }),
    );
  const deadline = Date.now() + REPLAY_MS;
  // Until the code settles, breaks a rule, or stops at steps the history does not hold (and stays there).
  for (let idle = 0; idle < 3; ) {
    await macrotask();
    if (settled || r.fatal()) break;
    if (Date.now() > deadline)
      return { reason: `the code reached no step for ${REPLAY_MS} ms: does it await something outside a step?` };
    idle = r.pending.length > 0 ? idle + 1 : 0;
  }
  const fatal = r.fatal();
  if (fatal) return { step: r.fatalStep(), reason: describeError(fatal).message };
  if (settled && !settled.ok) return { reason: `the code throws: ${describeError(settled.error).message}` };
  const unreached = r.unreached();
  if (settled && unreached.length > 0) {
    return {
      step: unreached[0],
      reason: `the run completed steps the code no longer reaches: ${unreached.map((n) => `"${n}"`).join(", ")}`,
    };
  }
  for (let i = 0; i + 1 < run.parks.length; i += 2) {
    const step = run.parks[i]!;
    const parked = JSON.parse(run.parks[i + 1]!) as { q: number };
    const at = r.positionOf(step);
    if (at === parked.q) continue;
    const there = r.pending.find((p) => p.seq === parked.q)?.name;
    const now =
      at !== undefined
        ? `the code now reaches it as step ${at + 1}`
        : there !== undefined
          ? `the code now reaches "${there}" there`
          : "the code no longer reaches it";
    return { step, reason: `the run is parked at step ${parked.q + 1}, "${step}", but ${now}` };
  }
  return undefined;
}
