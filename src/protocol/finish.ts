// finish.lua: a tick's last call (ack, requeue the unstarted, unregister).
import { scripts } from "../lua/index.js";
import { counted, defineCall, group, key, list, maybe, number, packed, text, tuple } from "./define.js";
import { acks, beat, ordered, processKeys } from "./sections.js";
import { workflowCommit } from "./workflows.js";

export const finish = defineCall(
  scripts.finish,
  { ticks: key, lease: key, process: processKeys },
  {
    tickId: text,
    leaseMs: number,
    deadMaxSize: number,
    deadMaxAgeSec: number,
    call: text,
    /** Workflow commits that end the tick's last executions (src/workflows/pass.ts). */
    workflows: packed(workflowCommit),
    beat,
    acks,
    queues: counted(text),
    /** The tick's budget and the jobs it could not start (lib/tick/record-unstartable.lua, src/tick/unstartable.ts). */
    unstartable: group({
      budgetMs: number,
      windowMs: number,
      entries: counted(group({ name: text, reason: text, queue: text, limitMs: number, count: number })),
    }),
    /** The tick's summary for the recent ticks, "" for none (lib/tick/record-recent.lua, src/tick/recent.ts). */
    recent: text,
    ordered,
  },
  tuple({
    nowMs: number,
    left: number,
    deadEvicted: number,
    orderedReady: maybe(number),
    missed: maybe(list(number)),
    sentOn: maybe(number),
    cancelled: maybe(list(number)),
    orderedCancelled: maybe(list(text)),
    committed: maybe(list(number)),
    /** 1 when the call found the tick's lease gone: its acks may have found their jobs resurrected. */
    leaseGone: maybe(number),
  }),
);
