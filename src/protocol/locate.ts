// locate.lua: looks for one job by jid, a bounded stretch of Redis per call.
import { scripts } from "../lua/index.js";
import { defineCall, flag, key, maybe, number, text, variants } from "./define.js";

export const locate = defineCall(
  scripts.locate,
  { queues: key, ticks: key },
  { jid: text, budget: number, stage: text, position: text },
  variants({
    found: { state: text, queue: text, job: text, where: text, tick: text, tickAlive: flag, parkedOn: maybe(text) },
    more: { stage: text, position: text },
    none: {},
  }),
);
