// begin.lua: a tick's first call (lease, registration, housekeeping, first fetch).
import { scripts } from "../lua/index.js";
import { counted, defineCall, flag, group, groups, key, list, maybe, number, optional, text, tuple } from "./define.js";
import { fetch, fetched, flowPart, housekeep, housekept, ordered, orderedFetched, processKeys } from "./sections.js";
import { claimedRun } from "./workflows.js";

export const begin = defineCall(
  scripts.begin,
  { ticks: key, lease: key, process: processKeys },
  {
    tickId: text,
    leaseMs: number,
    deadMaxSize: number,
    deadMaxAgeSec: number,
    registration: text,
    housekeep,
    askPolicy: flag,
    recurring: group({ digest: text, dueLimit: number, shiftMs: number }),
    /** claim -1: the app declares no workflow. */
    workflows: group({ claim: number, retentionMs: number }),
    /** Runs created before the claim (startAndWait's tick); none for every other tick. */
    starts: counted(group({ id: text, name: text, input: text, version: number })),
    info: optional(text, "keys"),
    fetch,
    ordered,
  },
  tuple({
    ...housekept,
    fetched,
    leaseHeld: flag,
    policy: text,
    due: maybe(tuple({ inSync: flag, due: groups({ name: text, slot: number, last: text }), more: flag })),
    ordered: maybe(orderedFetched),
    flow: flowPart,
    expired: maybe(list(text)),
    workflows: maybe(
      tuple({
        claimed: list(claimedRun),
        more: flag,
        /** With starts: Redis was full (none created), else the name each id holds. */
        started: maybe(tuple({ full: flag, holders: list(text) })),
      }),
    ),
    /** 1 when the prefix holds a virtual clock (tickq/testing): a production tickq refuses it. */
    testClock: maybe(number),
    /**
     * 1 when the fetch filled the batch yet left nothing due behind: no step need ask again; 2 when it took
     * everything due but capped ordered ids left payloads behind their runs: a step with their acks takes them;
     * 3 when capped ordered ids left payloads behind their runs though more is due (the tick remembers them).
     */
    drained: maybe(number),
  }),
);
