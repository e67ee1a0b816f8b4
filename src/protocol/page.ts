// page.lua: one page of a queue or of a sorted set.
import { scripts } from "../lua/index.js";
import { defineCall, group, groups, key, list, number, text, tuple } from "./define.js";

export const page = defineCall(
  scripts.page,
  { set: key },
  {
    kind: text,
    order: text,
    limit: number,
    budget: number,
    name: text,
    queue: text,
    cursor: group({ at: text, jid: text, near: text, nearJid: text }),
  },
  tuple({ entries: groups({ job: text, where: text }), cursor: list(text), size: number, examined: number }),
);
