// given_up.lua: before finish, whether each step a tick gave up on ran at Redis (none can from then on).
import { scripts } from "../lua/index.js";
import { counted, defineCall, flag, key, list, number, text, tuple } from "./define.js";

export const given_up = defineCall(
  scripts.given_up,
  { ticks: key, lease: key },
  { tickId: text, call: text, steps: counted(text) },
  tuple({ nowMs: number, leaseHeld: flag, ran: list(number) }),
);
