// The runtime as metrics see it: the tick core's, and its own slice.
import type { Runtime } from "../tick/runtime.js";
import type { MetricsSettings } from "./settings.js";

/** What metrics add to the runtime (src/runtime.ts builds it). */
export interface MetricsSlice {
  /** Metrics kept in Redis; undefined with `metrics: false`. */
  metrics: MetricsSettings | undefined;
}

export type MetricsRuntime = Runtime & MetricsSlice;
