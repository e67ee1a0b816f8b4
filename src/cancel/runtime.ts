// The runtime as cancels see it: the tick core's, and its own slice.
import type { Runtime } from "../tick/runtime.js";
import type { CancelWatch } from "./watch.js";

/** What cancels add to the runtime (src/runtime.ts builds it). */
export interface CancelSlice {
  /** Cancels this process's ticks heard of (watch.ts). */
  cancels: CancelWatch;
}

export type CancelRuntime = Runtime & CancelSlice;
