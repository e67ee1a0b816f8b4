// move.lua: takes jobs out of where they wait, deleting them or pushing them to their queue.
import { scripts } from "../lua/index.js";
import { counted, defineCall, group, key, number, text } from "./define.js";

export const move = defineCall(
  scripts.move,
  { queues: key },
  {
    token: text,
    keepMs: number,
    jobs: counted(group({ from: text, job: text, action: text, push: text, distance: text })),
  },
  text,
);
