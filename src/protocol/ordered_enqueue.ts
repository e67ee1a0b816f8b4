// ordered_enqueue.lua: adds payloads to ordered ids.
import { scripts } from "../lua/index.js";
import { counted, defineCall, group, key, number, text } from "./define.js";

export const ordered_enqueue = defineCall(
  scripts.ordered_enqueue,
  { names: key },
  {
    token: text,
    tokenMs: number,
    payloads: counted(group({ name: text, id: text, payload: text, score: text, delayMs: number })),
  },
  text,
);
