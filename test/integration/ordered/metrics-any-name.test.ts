// An ordered ack's metrics tally its successes by name (lib/metrics/record-ordered-runs.lua): any name
// is a key of that tally, including the words its own bookkeeping uses ("order", "names", "by_name"),
// and each name's runs are counted as its own.
import { describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const QUIET = { info() {}, warn() {}, error() {} };

describe.each(adapterCases)("ordered run metrics over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-metrics-names");

  it("counts the runs of names the tally's own words spell, each under its own name", async () => {
    const names = ["order", "names", "by_name"] as const;
    const tq = createTickq({
      redis: h.adapter,
      prefix: h.prefix,
      logger: QUIET,
      jobs: {},
      ordered: Object.fromEntries(names.map((name) => [name, { perform: () => {} }])),
    });
    await tq.enqueueOrderedBulk(
      names.flatMap((name, k) => Array.from({ length: k + 1 }, (_, i) => ({ name, id: `id-${i}`, payload: i }))),
    );
    for (let ran = 0; ran < 6; ) {
      const report = await tq.tick({ batch: 100, concurrency: 100 });
      ran += report.succeeded;
      if (report.fetched === 0 && !report.more) break;
    }
    const total = await h.redis.hgetall(`${h.prefix}metrics:total`);
    expect(names.map((name) => total[`j|${name}|r`])).toEqual(["1", "2", "3"]);
  });
});
