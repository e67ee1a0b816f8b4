// tick-burst-memory.test.ts over every adapter of the run, in the fault run
// (`npm run test:faults`): 20,000 ticks a client take a minute or more over
// HTTP, too long beside the other files of the integration project.
import { it } from "vitest";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { expectBurstBounded } from "../../helpers/tick-burst.js";

describeOverAdapters(adapterCases, "a burst of ticks over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "tick-burst-all");

  it("20,000 ticks, kicked and empty, leave at most 1 MiB under the prefix, and the first one's begin replayed starts nothing", async () => {
    await expectBurstBounded(h.adapter, h.redis, h.prefix);
  }, 600_000);
});
