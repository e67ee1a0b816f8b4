// tq.workflows.fork: a new run of a run's workflow and version whose steps
// before `fromStep` are copies of the source's completed step records (as
// stored: results keep their bytes), so they answer without running. Read
// in one call (workflow_read) and written in another (workflow_fork), so
// the source and the new run may live in different partitions.
import { TickqError } from "../errors.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { terminalJson } from "../printable.js";
import { checkJobSize } from "../job/size.js";
import { unfaithfulJson } from "../job/json-value.js";
import type { WorkflowForkOptions } from "./types.js";

/** What a fork copies from its source run. */
export interface ForkSource {
  runId: string;
  name: string;
  version: string;
  /** The source's input JSON, as stored. */
  input: string;
  /** The completed records before `fromStep`, as stored. */
  records: { step: string; record: string }[];
}

/** A stored record's position; records put their small fields first (lib/workflows/run-state.lua). */
const seqOf = (text: string): number => Number(/"seq":(\d+)/.exec(text.slice(0, 256))?.[1] ?? Number.NaN);
const isCompleted = (text: string): boolean => text.slice(0, 256).includes('"status":"completed"');

export async function readForkSource(
  runtime: Runtime,
  runId: string,
  options: WorkflowForkOptions,
): Promise<ForkSource> {
  const fromStep = options?.fromStep;
  if (typeof fromStep !== "string" || fromStep === "") {
    throw new TickqError("BAD_ARGS", "workflows.fork: fromStep must be the name of a step of the run");
  }
  const reply = await runCall(
    runtime,
    protocol.workflow_read,
    { run: `${runtime.prefix}wf:run:${runId}` },
    { id: runId },
  );
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < reply.fields.length; i += 2) fields.set(reply.fields[i]!, reply.fields[i + 1]!);
  const name = fields.get("name");
  if (name === undefined) throw new TickqError("NOT_FOUND", `no workflow run ${terminalJson(runId)}`);
  // Each step's position: its record's, or a parked step's entry's.
  const steps = new Map<string, { at: number; text?: string }>();
  for (let i = 0; i + 1 < reply.steps.length; i += 2) {
    const text = reply.steps[i + 1]!;
    steps.set(reply.steps[i]!, { at: seqOf(text), text });
  }
  for (let i = 0; i + 1 < reply.parks.length; i += 2) {
    steps.set(reply.parks[i]!, { at: (JSON.parse(reply.parks[i + 1]!) as { q: number }).q });
  }
  // The step that failed the run on its first try left no record: it came after every completed step.
  const failedStep = (JSON.parse(fields.get("error") ?? "{}") as { step?: unknown }).step;
  if (failedStep === fromStep && !steps.has(fromStep)) {
    steps.set(fromStep, { at: Math.max(-1, ...[...steps.values()].map((s) => s.at)) + 1 });
  }
  const from = steps.get(fromStep);
  if (from === undefined) {
    const known = [...steps.keys()].map((s) => terminalJson(s)).join(", ") || "none";
    throw new TickqError(
      "BAD_ARGS",
      `workflows.fork: run ${terminalJson(runId)} has no step ${terminalJson(fromStep)} (its steps: ${known})`,
    );
  }
  const records = [...steps].flatMap(([step, { at, text }]) =>
    text !== undefined && isCompleted(text) && at < from.at ? [{ step, record: text }] : [],
  );
  return { runId, name, version: fields.get("version") ?? "1", input: fields.get("input") ?? "null", records };
}

export async function createFork(runtime: Runtime, source: ForkSource, id: string, input: unknown): Promise<string> {
  let text = source.input;
  if (input !== undefined) {
    const problem = unfaithfulJson(input, "workflows.fork: input");
    if (problem) throw new TickqError("BAD_ARGS", `workflows.fork: input must be a JSON value; ${problem}`);
    text = JSON.stringify(input);
    checkJobSize(text, runtime.maxJobBytes, `workflow "${source.name}": the fork's input`);
  }
  const stored = await runCall(
    runtime,
    protocol.workflow_fork,
    { run: `${runtime.prefix}wf:run:${id}` },
    { id, name: source.name, input: text, version: source.version, source: source.runId, records: source.records },
  );
  if (stored !== source.name) {
    throw new TickqError("CONFLICT", `workflow run id ${terminalJson(id)} is taken by a run of workflow "${stored}"`);
  }
  return id;
}
