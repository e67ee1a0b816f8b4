// housekeep.lua: one more bounded resurrect and delayed pass in a tick.
import { scripts } from "../lua/index.js";
import { defineCall, flag, key, text, tuple } from "./define.js";
import { housekeep as limits, housekept } from "./sections.js";

export const housekeep = defineCall(
  scripts.housekeep,
  { ticks: key, lease: key },
  { tickId: text, call: text, housekeep: limits },
  tuple({ ...housekept, leaseHeld: flag }),
);
