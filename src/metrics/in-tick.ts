// Metrics in a tick (tick/capability.ts): each ack's run times and waits,
// summed per queue and job name, ride as its metrics trailer
// (lib/metrics/record-runs.lua). Off (`metrics: false`): no part.
import type { Runtime } from "../tick/runtime.js";
import type { Capability } from "../tick/capability.js";
import { metricsSection } from "./section.js";

export const metricsCapability = (runtime: Runtime): Capability => ({
  name: "metrics",
  forTick() {
    const settings = runtime.metrics;
    if (!settings) return undefined;
    return {
      ackTrailers(_outcomes, inAckOrder, others) {
        const metrics = metricsSection(inAckOrder, others, settings);
        return metrics ? { metrics } : {};
      },
    };
  },
});
