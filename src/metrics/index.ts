// tq.metrics (src/metrics/README.md).
import type { StatsRuntime } from "../client/stats.js";
import { exposition } from "./exposition.js";
import { queryMetrics } from "./query.js";
import type { MetricsApi } from "./types.js";

export function metricsApi(runtime: StatsRuntime): MetricsApi {
  return { query: (query) => queryMetrics(runtime, query), prometheus: () => exposition(runtime) };
}
