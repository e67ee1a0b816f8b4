// The runtime as sidekiq sees it: the tick core's, and its own slice.
import type { Runtime } from "../tick/runtime.js";
import type { SidekiqProcess } from "./process.js";

/** What Sidekiq interop adds to the runtime (src/runtime.ts builds it). */
export interface SidekiqSlice {
  /** Ticks register as Sidekiq processes (process.ts); undefined: off. */
  sidekiq: SidekiqProcess | undefined;
}

export type SidekiqRuntime = Runtime & SidekiqSlice;
