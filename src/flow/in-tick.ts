// Flow control in a tick (tick/capability.ts): a plain fetch's flow part
// gives each flow job its fence (fences.ts) and says whether jobs wait parked
// on keys; acking a flow job may free the slot one waits for. Their runs are
// exclusive while the lease lives, under the guard ordered ids use
// (src/ordered/in-tick.ts).
import type { Capability } from "../tick/capability.js";
import type { FetchedJob } from "../tick/passes/fetch.js";
import { readFetchedFenced } from "./fences.js";

// One function for every tick, not a closure each: the tick's slot check calls it for every job, and a
// new tick's closure there made V8 throw that check's optimized code away (bench/drain-warmup.ts, traced).
const holdsSlot = (job: FetchedJob) => job.flowFence !== undefined;

export const flowCapability = (): Capability => ({
  name: "flow",
  forTick: () => ({
    readFetched: readFetchedFenced,
    holdsSlot,
  }),
});
