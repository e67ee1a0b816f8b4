// The runtime as ordered sees it: the tick core's, and its own slice.
import type { Runtime } from "../tick/runtime.js";
import type { CancelSlice } from "../cancel/runtime.js";
import type { MetricsSlice } from "../metrics/runtime.js";
import type { OrderedRegistry } from "./types.js";

/** What ordered ids add to the runtime (src/runtime.ts builds it). */
export interface OrderedSlice {
  /** Ordered jobs by id, and their names: what every tick serves. */
  ordered: OrderedRegistry;
  orderedNames: string[];
}

/** With the cancels its runs watch and the metrics its acks carry. */
export type OrderedRuntime = Runtime & OrderedSlice & CancelSlice & MetricsSlice;
