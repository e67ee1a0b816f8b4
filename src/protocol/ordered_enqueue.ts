// ordered_enqueue.lua: adds payloads to ordered ids.
import { scripts } from "../lua/index.js";
import { defineCall, group, key, number, packed, text } from "./define.js";

export const ordered_enqueue = defineCall(
  scripts.ordered_enqueue,
  { names: key },
  {
    token: text,
    tokenMs: number,
    // Packed: one value where a payload was five, each handled by ioredis (bench/ordered-instructions.ts).
    payloads: packed(group({ name: text, id: text, payload: text, score: text, delayMs: number })),
  },
  text,
);
