// step.lua: a tick's middle calls (ack, extend, fetch more).
import { scripts } from "../lua/index.js";
import { defineCall, flag, key, list, maybe, number, text, tuple } from "./define.js";
import { acks, beat, fetch, fetched, flowPart, ordered, orderedFetched, processKeys } from "./sections.js";

export const step = defineCall(
  scripts.step,
  { ticks: key, lease: key, process: processKeys },
  { tickId: text, leaseMs: number, deadMaxSize: number, deadMaxAgeSec: number, call: text, beat, acks, fetch, ordered },
  tuple({
    nowMs: number,
    leaseHeld: flag,
    deadEvicted: number,
    fetched,
    ordered: maybe(orderedFetched),
    missed: maybe(list(number)),
    flow: flowPart,
    sentOn: maybe(number),
    expired: maybe(list(text)),
    cancelled: maybe(list(number)),
    cancels: maybe(list(text)),
    orderedCancelled: maybe(list(text)),
    /** 1 when the fetch took all it asked for yet left nothing due behind; 2 and 3 as begin's (protocol/begin.ts). */
    drained: maybe(number),
    /** A lane step's run number (Redis counts a tick's lane steps as it runs them): absent over TCP and from older Lua. */
    ran: maybe(number),
  }),
);
