// On one Redis, over every adapter: a migration from one partition to three
// and back keeps what the old layout promised (test/helpers/migration-promises.ts):
// remembered jids, until-executed claims, rate limit starts, debounce windows,
// when each run is cut and run again. The cluster's own: migration-keeps-what-the-old-layout-promised.test.ts.
import { it } from "vitest";
import { partitionPrefixes } from "../../../src/partitions/layout.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { expectPromisesKept, makePromises, migrateCut, promisingJobs } from "../../helpers/migration-promises.js";

const QUIET = { info: () => {}, warn: () => {}, error: () => {} };

describeOverAdapters(adapterCases, "a migration keeps the old layout's promises, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "part-promises");

  it("from one partition into three, cut twice and resumed", async () => {
    const runs = new Map<string, number>();
    const jobs = promisingJobs(runs);
    const debounced = await makePromises(h.make(jobs), h.redis, h.prefix);
    await migrateCut([7, 13], { redis: h.adapter, prefix: h.prefix, partitions: 3, logger: QUIET });
    await expectPromisesKept(h.make(jobs, { partitions: 3 }), runs, debounced);
  }, 60_000);

  it("from three partitions into one, cut twice and resumed", async () => {
    const runs = new Map<string, number>();
    const jobs = promisingJobs(runs);
    const debounced = await makePromises(h.make(jobs, { partitions: 3 }), h.redis, partitionPrefixes(h.prefix, 3)[2]!);
    await migrateCut([6, 10], { redis: h.adapter, prefix: h.prefix, partitions: 1, logger: QUIET });
    await expectPromisesKept(h.make(jobs), runs, debounced);
  }, 60_000);
});
