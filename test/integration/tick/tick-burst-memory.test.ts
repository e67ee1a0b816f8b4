// What a burst of ticks leaves under the prefix: 20,000 ticks, half kicked
// by enqueues and half empty, leave at most 1 MiB once their leases are
// gone, the guard against late replays of begin (lib/tick/begun-ids.lua) at
// most its stated 512 KiB of ids; and that guard still refuses a replay of
// the burst's first begin. Over ioredis here; the fault run covers every
// adapter (tick-burst-memory-every-adapter.test.ts).
import { it } from "vitest";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { expectBurstBounded } from "../../helpers/tick-burst.js";

describeOverAdapters(
  adapterCases.filter((c) => c.name === "ioredis"),
  "a burst of ticks over $name",
  (adapterCase) => {
    const h = useHarness(adapterCase, "tick-burst");

    it("20,000 ticks, kicked and empty, leave at most 1 MiB under the prefix, and the first one's begin replayed starts nothing", async () => {
      await expectBurstBounded(h.adapter, h.redis, h.prefix);
    }, 240_000);
  },
);
