// tq.metrics (src/metrics/README.md).
import type { Runtime } from "../tick/runtime.js";
import { exposition } from "./exposition.js";
import { queryMetrics } from "./query.js";
import type { MetricsApi } from "./types.js";

export function metricsApi(runtime: Runtime): MetricsApi {
  return { query: (query) => queryMetrics(runtime, query), prometheus: () => exposition(runtime) };
}
