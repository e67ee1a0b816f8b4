// The runtime as results sees it: the tick core's, and its own slice.
import type { Runtime } from "../tick/runtime.js";
import type { ProgressBuffer } from "./progress.js";
import type { ResultSettings } from "./settings.js";

/** What results add to the runtime (src/runtime.ts builds it). */
export interface ResultsSlice {
  /** Succeeded jobs kept as history and the size of results kept. */
  results: ResultSettings;
  /** ctx.progress values not sent yet (progress.ts). */
  progress: ProgressBuffer;
}

export type ResultsRuntime = Runtime & ResultsSlice;
