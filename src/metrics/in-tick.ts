// Metrics in a tick (tick/capability.ts): each plain run's time and wait are
// noted on its outcome (measure.ts), and each ack's, summed per queue and
// job name, ride as its metrics trailer (lib/metrics/record-runs.lua).
// Off (`metrics: false`): no part.
import type { MetricsRuntime } from "./runtime.js";
import type { Capability, JobHooks } from "../tick/capability.js";
import { runMeter } from "./measure.js";
import { metricsSection } from "./section.js";

export const metricsCapability = (runtime: MetricsRuntime): Capability => {
  const job: JobHooks = {
    // Redis' clock as the tick knows it when the run ends (an offset learned meanwhile differs by the clocks' drift).
    meter: (payload, startedMono, outcome, endedMono) =>
      runMeter(payload, startedMono, runtime.clockOffsetMs, outcome, endedMono),
  };
  return {
    name: "metrics",
    forTick() {
      const settings = runtime.metrics;
      if (!settings) return undefined;
      return {
        job,
        ackTrailers(_outcomes, inAckOrder, others) {
          const metrics = metricsSection(inAckOrder, others, settings);
          return metrics ? { metrics } : {};
        },
      };
    },
  };
};
