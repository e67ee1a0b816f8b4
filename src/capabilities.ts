// The capabilities every tick of createTickq composes (tick/capability.ts),
// in the order their parts run: each reads its own options and adds nothing
// to a tick when they are off. Adding a capability is a line here; tick/
// names none of them.
import { cancelCapability } from "./cancel/in-tick.js";
import { expiryCapability } from "./expiry/in-tick.js";
import { flowCapability } from "./flow/in-tick.js";
import { metricsCapability } from "./metrics/in-tick.js";
import { orderedCapability } from "./ordered/in-tick.js";
import { recurringCapability } from "./recurring/in-tick.js";
import { resultsCapability } from "./results/in-tick.js";
import { sidekiqCapability } from "./sidekiq/in-tick.js";
import type { Capability } from "./tick/capability.js";
import type { TickqRuntime } from "./runtime.js";
import { workflowsCapability } from "./workflows/in-tick.js";

export function tickCapabilities(runtime: TickqRuntime): readonly Capability[] {
  return [
    // Outermost around a plain job's run: the Busy page lists it while any guard runs inside.
    sidekiqCapability(runtime),
    cancelCapability(runtime),
    expiryCapability(),
    flowCapability(),
    orderedCapability(runtime),
    recurringCapability(runtime),
    workflowsCapability(runtime),
    resultsCapability(runtime),
    metricsCapability(runtime),
  ];
}
