// Flow control in a tick (tick/capability.ts): a plain fetch's flow part
// gives each flow job its fence (fences.ts) and says whether jobs wait parked
// on keys; acking a flow job may free the slot one waits for. Their runs are
// exclusive while the lease lives, under the guard ordered ids use
// (src/ordered/in-tick.ts).
import type { Capability } from "../tick/capability.js";
import { readFetchedFenced } from "./fences.js";

export const flowCapability = (): Capability => ({
  name: "flow",
  forTick: () => ({
    readFetched: readFetchedFenced,
    holdsSlot: (job) => job.flowFence !== undefined,
  }),
});
