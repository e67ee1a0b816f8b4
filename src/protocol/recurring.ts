// recurring.lua: a tick's call for recurring jobs (sync, claim due slots, fetch).
import { scripts } from "../lua/index.js";
import { counted, defineCall, flag, group, key, list, maybe, number, text, tuple } from "./define.js";
import { fetch, fetched, flowPart } from "./sections.js";

export const recurring = defineCall(
  scripts.recurring,
  { ticks: key, lease: key },
  {
    tickId: text,
    call: text,
    shiftMs: number,
    pruneGraceMs: number,
    digest: text,
    sync: flag,
    declared: counted(group({ name: text, timingFp: text, specFp: text, spec: text, next: text })),
    due: counted(
      group({
        name: text,
        specFp: text,
        slot: number,
        next: text,
        slots: counted(group({ slot: number, queue: text, job: text })),
      }),
    ),
    orphans: counted(group({ name: text, slot: number })),
    fetch,
  },
  tuple({
    leaseHeld: flag,
    enqueued: number,
    claimed: list(text),
    pruned: number,
    fetched,
    flow: flowPart,
    expired: maybe(list(text)),
  }),
);
