// The workflow scripts (src/workflows/): start a run, a tick's claim-and-commit
// call, an event, and the reads of runs.
import { scripts } from "../lua/index.js";
import { counted, defineCall, digits, flag, group, key, list, number, packed, text, tuple } from "./define.js";

export const workflow_start = defineCall(
  scripts.workflow_start,
  { run: key },
  { id: text, name: text, input: text, version: number },
  text,
);

/** Many runs in one call, all or none (workflow_start_bulk.lua): the name each id holds, in order. */
export const workflow_start_bulk = defineCall(
  scripts.workflow_start_bulk,
  { all: key },
  { runs: counted(group({ id: text, name: text, input: text, version: number })) },
  list(text),
);

/** One execution's commit (lib/workflows/commit-runs.lua). */
export const workflowCommit = group({
  id: text,
  fence: text,
  disposition: text,
  extra: text,
  steps: counted(group({ name: text, record: text })),
  parks: counted(group({ step: text, kind: text, seq: number, ms: text, event: text, match: text })),
});

/**
 * A run a tick claimed (lib/workflows/claim-runs.lua): its fence, its step records as name, JSON, cut, …
 * (cut "0": the whole record; else the record without its result, and its stored size:
 * lib/workflows/carry-steps.lua), its key form, the workflow version it runs on.
 */
export const claimedRun = tuple({
  id: text,
  name: text,
  input: text,
  fence: text,
  steps: list(text),
  keyForm: text,
  version: text,
});

export const workflow_tick = defineCall(
  scripts.workflow_tick,
  { ticks: key, lease: key },
  { tickId: text, call: number, claim: number, retentionMs: number, commits: packed(workflowCommit) },
  tuple({
    leaseHeld: flag,
    nowMs: number,
    committed: digits,
    claimed: list(claimedRun),
    more: flag,
    cancelled: list(text),
  }),
);

export const workflow_event = defineCall(
  scripts.workflow_event,
  { waits: key },
  { token: text, tokenMs: number, event: text, match: text, data: text, id: text, retentionMs: number },
  tuple({ found: number, left: number }),
);

export const workflow_deliver = defineCall(scripts.workflow_deliver, { event: key }, { token: text }, number);

export const workflow_read = defineCall(
  scripts.workflow_read,
  { run: key },
  { id: text },
  tuple({ fields: list(text), steps: list(text), parks: list(text), due: text }),
);

export const workflow_list = defineCall(
  scripts.workflow_list,
  { index: key },
  { name: text, offset: number, limit: number },
  tuple({
    next: number,
    runs: list(tuple({ id: text, name: text, status: text, created: text, updated: text })),
  }),
);

export const workflow_cancel = defineCall(scripts.workflow_cancel, { run: key }, { id: text }, text);

/** The records of steps whose results a claim left in Redis (lib/workflows/carry-steps.lua), fenced by the run's holder. */
export const workflow_steps = defineCall(
  scripts.workflow_steps,
  { ticks: key, lease: key },
  { tickId: text, id: text, fence: text, names: counted(text) },
  tuple({ held: flag, records: list(text) }),
);

/** Live runs with their step records and parked steps, for tq.workflows.check (a page of wf:all, newest first). */
export const workflow_live = defineCall(
  scripts.workflow_live,
  { index: key },
  { name: text, offset: number, limit: number },
  tuple({
    next: number,
    runs: list(tuple({ id: text, name: text, version: text, input: text, steps: list(text), parks: list(text) })),
  }),
);

/** Resumes a failed or cancelled run (outcome: resumed, again, live, completed, cancelling, or "" for no run). */
export const workflow_retry = defineCall(
  scripts.workflow_retry,
  { run: key },
  { id: text, token: text },
  tuple({ outcome: text, status: text }),
);

/** A new run whose first steps are copies of another run's completed step records. */
export const workflow_fork = defineCall(
  scripts.workflow_fork,
  { run: key },
  {
    id: text,
    name: text,
    input: text,
    version: text,
    source: text,
    records: counted(group({ step: text, record: text })),
  },
  text,
);
