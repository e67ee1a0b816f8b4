// extend.lua: keeps a tick's lease alive with its load (and beats as a Sidekiq process); learns of cancels.
import { scripts } from "../lua/index.js";
import { counted, defineCall, flag, group, key, list, number, optional, text, tuple } from "./define.js";
import { beat, processKeys } from "./sections.js";

export const extend = defineCall(
  scripts.extend,
  { lease: key, process: processKeys },
  {
    tickId: text,
    leaseMs: number,
    load: text,
    beat,
    progress: optional(counted(group({ jid: text, value: text })), "last"),
    heard: optional(counted(text), "last"),
  },
  tuple({ extended: flag, cancels: list(text) }),
);
