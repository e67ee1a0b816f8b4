// tq.stats(): the counters and sizes of a prefix and each capability's figures,
// read in one stats.lua call, with the warnings the tick's records give.
import { flowStatsArgs, flowStatsFrom } from "../flow/stats.js";
import { orderedStatsFrom } from "../ordered/stats.js";
import { unrunnableWarnings, workflowStatsFrom } from "../workflows/stats.js";
import { evictionWarning, fullWarning, learnEvictionPolicy } from "../tick/runtime.js";
import type { OrderedSlice } from "../ordered/runtime.js";
import type { Runtime } from "../tick/runtime.js";
import type { WorkflowsSlice } from "../workflows/runtime.js";

/** Stats read the ordered names and whether workflows are declared. */
export type StatsRuntime = Runtime & OrderedSlice & WorkflowsSlice;
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { Stats } from "./types.js";
import { nameRecord } from "../name-record.js";
import { heartbeatWarnings } from "../tick/warnings.js";
import { readUnstartable, unstartableWarning } from "../tick/unstartable-warnings.js";

export async function readStats(runtime: StatsRuntime): Promise<Stats> {
  // One call: a dashboard refresh costs one script run, whatever is declared.
  const names = Object.keys(runtime.jobs);
  const orderedNames = runtime.orderedNames;
  const reply = await runCall(
    runtime,
    protocol.stats,
    { queues: runtime.keys.queues, ticks: runtime.keys.ticks },
    {
      flowNames: flowStatsArgs(names),
      orderedNames,
      workflowNames: Object.keys(runtime.workflows),
      // A tickq that declares no workflows (the CLI's) shows those Redis counts runs of, as the app's GET /stats.
      storedWorkflows: Object.keys(runtime.workflows).length === 0,
    },
  );
  const flow = flowStatsFrom(reply.flow, names);
  const ordered = orderedStatsFrom(reply.ordered, orderedNames);
  // Keyed by queue names, which may be any Object.prototype member: src/name-record.ts.
  // The queues the `queues` option lists show before their first job (empty, 0 ms), so an operator
  // finds a declared queue where they look; Redis knows a queue only once a job was sent to it.
  const declared = runtime.declaredQueues.map((name) => ({ name, size: 0, latencyMs: 0 }));
  const all = [...declared, ...reply.queues];
  const queues = nameRecord(all.map((q) => [q.name, q.size]));
  const latency = nameRecord(all.map((q) => [q.name, q.latencyMs]));
  const policy = reply.policy;
  learnEvictionPolicy(runtime, policy);
  const beats = new Map(reply.heartbeat.map((b) => [b.field, b.ms]));
  const served = nameRecord(
    [...beats].filter(([field]) => field.startsWith("queue:")).map(([field, ms]) => [field.slice(6), ms]),
  );
  const paused = [...reply.paused].sort();
  const lastTickAt = beats.get("tick") ?? null;
  const warning = evictionWarning(policy);
  const full = fullWarning(reply.usedMemory, reply.maxMemory);
  const unstartable = readUnstartable({ nowMs: reply.nowMs, records: reply.unstartable, budgets: reply.budgets });
  const warnings = [
    ...heartbeatWarnings({ nowMs: reply.nowMs, lastTickAt, queues, served, paused: new Set(paused), due: reply.due }),
    ...unstartable.map(unstartableWarning),
    ...unrunnableWarnings(reply.nowMs, reply.unrunnable),
    ...(warning ? [warning] : []),
    ...(full ? [full] : []),
  ];
  return {
    processed: reply.processed,
    failed: reply.failed,
    expired: reply.expired,
    deadEvicted: reply.deadEvicted,
    cancelled: reply.cancelled,
    scheduled: reply.scheduled,
    retry: reply.retry,
    dead: reply.dead,
    ticks: reply.ticks,
    inflight: reply.inflight,
    running: reply.running,
    fetchedWaiting: reply.waiting,
    queues,
    latency,
    paused,
    lastTickAt,
    evictionPolicy: policy,
    warnings,
    unstartable,
    ordered,
    flow,
    schedules: reply.schedules,
    workflows: workflowStatsFrom(reply.workflows, reply.workflowNames),
  };
}
