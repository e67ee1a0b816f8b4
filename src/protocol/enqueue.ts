// enqueue.lua: pushes or schedules jobs.
import { scripts } from "../lua/index.js";
import { counted, defineCall, group, key, number, text } from "./define.js";

export const enqueue = defineCall(
  scripts.enqueue,
  { queues: key, schedule: key },
  {
    token: text,
    tokenMs: number,
    idWindowMs: number,
    jobs: counted(group({ queue: text, delayMs: number, atMs: number, jid: text, job: text })),
  },
  text,
);
