// debounce.lua: enqueues a debounced job (src/debounce/).
import { scripts } from "../lua/index.js";
import { defineCall, key, number, text } from "./define.js";

export const debounce = defineCall(
  scripts.debounce,
  { schedule: key },
  { token: text, tokenMs: number, key: text, delayMs: number, maxDelayMs: number, jid: text, job: text },
  text,
);
