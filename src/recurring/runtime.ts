// The runtime as recurring sees it: the tick core's, and its own slice.
import type { Runtime } from "../tick/runtime.js";
import type { RecurringSet } from "./declare.js";

/** What recurring jobs add to the runtime (src/runtime.ts builds it). */
export interface RecurringSlice {
  /** The recurring jobs this deployment declares. */
  recurring: RecurringSet;
}

export type RecurringRuntime = Runtime & RecurringSlice;
