// cancel.lua: cancels one job where it waits (taken out, recorded) or runs (marked for its tick).
import { scripts } from "../lua/index.js";
import { defineCall, key, number, text } from "./define.js";

export const cancel = defineCall(
  scripts.cancel,
  { queues: key },
  { token: text, keepMs: number, jid: text, from: text, job: text, distance: text, tick: text },
  text,
);
