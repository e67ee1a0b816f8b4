// clear.lua: deletes every job of one sorted set or queue.
import { scripts } from "../lua/index.js";
import { defineCall, key, number, text } from "./define.js";

export const clear = defineCall(scripts.clear, { set: key }, { token: text, keepMs: number }, number);
