// ordered_cancel.lua: cancels an ordered id where it waits (taken out, recorded) or runs (its run marked for its tick).
import { scripts } from "../lua/index.js";
import { defineCall, key, number, text } from "./define.js";

export const ordered_cancel = defineCall(
  scripts.ordered_cancel,
  { ticks: key },
  { token: text, keepMs: number, name: text, id: text, tick: text, fence: text, records: text },
  text,
);
