// A run's stored form and how it reads back: the step records (JSON, one
// per step name, written whole at each commit: lib/workflows/commit-runs.lua)
// and the run hash (lib/workflows/run-state.lua).
import { utf8Bytes } from "../job/size.js";
import { storedVersion } from "./versions.js";
import type { WorkflowFailure, WorkflowRun, WorkflowStatus, WorkflowStepInfo } from "./types.js";

/** A step record as stored. `seq`: the step's position in the run's call order, for the determinism guard. */
export interface StepRecord {
  status: "completed" | "failed";
  seq: number;
  attempts: number;
  startedAt?: number;
  endedAt?: number;
  result?: unknown;
  error?: { name: string; message: string; stack?: string };
}

/** Step records by name, from a flat HGETALL reply. */
export function readStepRecords(flat: string[]): Map<string, StepRecord> {
  const records = new Map<string, StepRecord>();
  for (let i = 0; i + 1 < flat.length; i += 2) records.set(flat[i]!, JSON.parse(flat[i + 1]!) as StepRecord);
  return records;
}

/** A claimed run's step records as its claim carried them (lib/workflows/carry-steps.lua). */
export interface ClaimedSteps {
  /** Every record; one whose result the claim left in Redis has none yet. */
  records: Map<string, StepRecord>;
  /** Steps whose result the claim left in Redis, with their stored records' sizes, in step order. */
  left: Map<string, number>;
  /** Every stored record's size in bytes, for the run's limit. */
  sizes: Map<string, number>;
}

/** A claim's records from its flat (name, text, cut) triples; cut "0": the whole record. */
export function readClaimedSteps(flat: string[]): ClaimedSteps {
  const steps: ClaimedSteps = { records: new Map(), left: new Map(), sizes: new Map() };
  for (let i = 0; i + 2 < flat.length; i += 3) {
    const name = flat[i]!;
    const text = flat[i + 1]!;
    const cut = Number(flat[i + 2]);
    steps.records.set(name, JSON.parse(text) as StepRecord);
    steps.sizes.set(name, cut > 0 ? cut : utf8Bytes(text));
    if (cut > 0) steps.left.set(name, cut);
  }
  return steps;
}

/** What a parked step's entry holds (lib/workflows/commit-runs.lua): kind, seq, when it ends by itself, a wait's event and match. */
interface ParkedEntry {
  k: "s" | "w";
  q: number;
  at?: number;
  e?: string;
  m?: string;
}

function pairs(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

/** The run as `tq.workflows.get` answers it, from workflow_read.lua's reply; undefined when there is no run. */
export function readRun(
  id: string,
  reply: { fields: string[]; steps: string[]; parks: string[]; due?: string },
): WorkflowRun | undefined {
  const f = Object.fromEntries(pairs(reply.fields));
  if (f.name === undefined) return undefined;
  // A failed step of a run due by time is tried again then (the run's next execution).
  const nextTryAt = reply.due ? Number(reply.due) : undefined;
  const steps: (WorkflowStepInfo & { seq: number })[] = [];
  for (const [name, record] of readStepRecords(reply.steps)) {
    const { status, seq, attempts, startedAt, endedAt, result, error } = record;
    const next = status === "failed" && f.status === "running" ? nextTryAt : undefined;
    steps.push({ name, seq, status, attempts, startedAt, endedAt, result, error, nextTryAt: next });
  }
  for (const [name, text] of pairs(reply.parks)) {
    const parked = JSON.parse(text) as ParkedEntry;
    const attempts = 0;
    const wait = parked.k === "w" ? { event: parked.e, match: parked.m } : {};
    steps.push({
      name,
      seq: parked.q,
      status: parked.k === "w" ? "waiting" : "sleeping",
      attempts,
      wakeAt: parked.at,
      ...wait,
    });
  }
  steps.sort((a, b) => a.seq - b.seq);
  return {
    id,
    name: f.name,
    version: storedVersion(f.version),
    status: f.status as WorkflowStatus,
    input: JSON.parse(f.input ?? "null"),
    output: f.output === undefined ? undefined : JSON.parse(f.output),
    error: f.error === undefined ? undefined : (JSON.parse(f.error) as WorkflowFailure),
    createdAt: Number(f.created),
    // A step's commit no longer writes the run's hash (one command a step less): its end counts here.
    updatedAt: Math.max(Number(f.updated), ...steps.map((s) => s.endedAt ?? 0)),
    endedAt: f.ended === undefined ? undefined : Number(f.ended),
    steps: steps.map(({ seq: _, ...step }) => dropUndefined(step)),
  };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
