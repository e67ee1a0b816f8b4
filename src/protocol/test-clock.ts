// The call of test_clock.lua, apart from the protocol's index: only
// tickq/testing names it, so the Worker and Vercel bundles carry neither the
// call nor the script's text.
import { testScripts } from "../lua/index.js";
import { defineCall, key, number, text, tuple } from "./define.js";

export const test_clock = defineCall(
  testScripts.test_clock,
  { clock: key },
  { op: text, offsetMs: number },
  tuple({ state: text, detail: text, nowMs: number }),
);
