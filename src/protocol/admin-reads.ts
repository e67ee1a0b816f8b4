// The read-only scripts behind the jobs API and the dashboard: queues,
// in-process jobs, live ticks, daily history, stats, recurring jobs.
import { scripts } from "../lua/index.js";
import { counted, defineCall, flag, groups, key, list, number, optional, text, tuple } from "./define.js";

export const queues = defineCall(
  scripts.queues,
  { queues: key, paused: key },
  {},
  groups({ name: text, size: number, paused: flag, servedMs: number, latencyMs: number }),
);

export const queue_parts = defineCall(
  scripts.queue_parts,
  { ring: key },
  { queue: text },
  tuple({ prio: flag, groups: list(text) }),
);

export const inflight = defineCall(
  scripts.inflight,
  { ticks: key },
  { limit: number },
  groups({ tick: text, alive: flag, queue: text, job: text }),
);

export const ticks = defineCall(
  scripts.ticks,
  { ticks: key },
  { limit: number },
  tuple({
    nowMs: number,
    ticks: groups({
      id: text,
      startedMs: number,
      leaseMs: number,
      leaseLeftMs: number,
      inflight: number,
      queues: text,
    }),
    recent: list(text),
  }),
);

export const history = defineCall(
  scripts.history,
  { processed: key },
  { days: number },
  groups({ day: text, processed: number, failed: number }),
);

export const stats = defineCall(
  scripts.stats,
  { queues: key, ticks: key },
  {
    flowNames: counted(text),
    orderedNames: counted(text),
    workflowNames: counted(text),
    storedWorkflows: optional(flag, "last"),
  },
  tuple({
    processed: number,
    failed: number,
    deadEvicted: number,
    scheduled: number,
    retry: number,
    dead: number,
    ticks: number,
    inflight: number,
    queues: groups({ name: text, size: number, latencyMs: number }),
    policy: text,
    schedules: number,
    nowMs: number,
    heartbeat: groups({ field: text, ms: number }),
    paused: list(text),
    due: number,
    flow: list(list(number)),
    ordered: list(list(number)),
    expired: number,
    running: number,
    waiting: number,
    workflows: list(list(number)),
    cancelled: number,
    /** Redis' memory as counted against maxmemory, and maxmemory (0: no limit). */
    usedMemory: number,
    maxMemory: number,
    unstartable: groups({ name: text, record: text }),
    budgets: groups({ queue: text, record: text }),
    /** Workflow versions ticks found no code for: "NAME@VERSION" → "<ms> <run id>" (lib/workflows/commit-runs.lua). */
    unrunnable: groups({ version: text, record: text }),
    /** The names `workflows` counts: those asked, or with storedWorkflows every name with stored counts. */
    workflowNames: list(text),
  }),
);

export const recurring_list = defineCall(
  scripts.recurring_list,
  { due: key },
  {},
  tuple({
    due: groups({ name: text, slot: text }),
    specs: groups({ name: text, spec: text }),
    fps: groups({ name: text, fps: text }),
    lasts: groups({ name: text, slot: text }),
    orphans: groups({ name: text, since: text }),
    paused: list(text),
  }),
);

export const metrics = defineCall(
  scripts.metrics,
  { queues: key },
  { sinceMinute: number, untilMinute: number, name: text, queue: text, totals: flag },
  tuple({
    nowMs: number,
    minutes: groups({ minute: number, fields: list(text) }),
    latency: groups({ queue: text, ms: number }),
    totals: list(text),
  }),
);
