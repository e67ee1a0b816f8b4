// migratePartitions on a real 3-master cluster keeps what the old layout
// promised: a debounce window open there still merges its key's enqueues; a caller's jid remembered there (the `jids` set, and the older
// per-window `jids:WINDOW:N` sets) is remembered in the new layout for the
// rest of its window, whichever partition its job's key routes it to; an
// until-executed job moved still refuses its duplicate; a rate-limited key's
// starts in the old layout still count; a job whose concurrency key a running
// job holds in the old layout is refused from moving, naming the key. In
// either direction, and when a run is cut and run again.
import { afterEach, describe, expect, it } from "vitest";
import { createTickq, migratePartitions } from "../../../src/index.js";
import { partitionPrefixes } from "../../../src/partitions/layout.js";
import { expectPromisesKept, makePromises, migrateCut, promisingJobs } from "../../helpers/migration-promises.js";
import { useClusterClients } from "../../helpers/private-cluster.js";

const QUIET = { info: () => {}, warn: () => {}, error: () => {} };
const HOUR = 3_600_000;

const cc = useClusterClients();

describe.each(cc.adapters)(
  "a migration keeps the old layout's promises, over a cluster through $name",
  ({ adapter }) => {
    afterEach(() => Promise.all(cc.client.nodes("master").map((node) => node.flushall())));

    it("from one slot ({tq}:) into three partitions, cut twice and resumed", async () => {
      const runs = new Map<string, number>();
      const jobs = promisingJobs(runs);
      const old = createTickq({ redis: adapter(), prefix: "{tq}:", jobs, logger: QUIET });
      const debounced = await makePromises(old, cc.client, "{tq}:");
      const report = await migrateCut([6, 12], {
        redis: adapter(),
        prefix: "tq:",
        from: "{tq}:",
        partitions: 3,
        logger: QUIET,
      });
      expect(report).toMatchObject({ partitions: 3, left: [] });
      await expectPromisesKept(
        createTickq({ redis: adapter(), prefix: "tq:", partitions: 3, jobs, logger: QUIET }),
        runs,
        debounced,
      );
    }, 60_000);

    it("from three partitions back into one slot, cut twice and resumed", async () => {
      const runs = new Map<string, number>();
      const jobs = promisingJobs(runs);
      const old = createTickq({ redis: adapter(), prefix: "tq:", partitions: 3, jobs, logger: QUIET });
      const debounced = await makePromises(old, cc.client, partitionPrefixes("tq:", 3)[1]!);
      const report = await migrateCut([5, 11], {
        redis: adapter(),
        prefix: "tq:",
        to: "{tq}:",
        partitions: 1,
        logger: QUIET,
      });
      expect(report).toMatchObject({ partitions: 1, left: [] });
      await expectPromisesKept(
        createTickq({ redis: adapter(), prefix: "{tq}:", jobs, logger: QUIET }),
        runs,
        debounced,
      );
    }, 60_000);

    it("refuses to move a job whose concurrency key a running job holds in the old layout, then moves it once that job ended", async () => {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started = () => {};
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const ran: string[] = [];
      const jobs = {
        sync: {
          perform: async ([label]: [string]) => {
            ran.push(label);
            if (label === "long") {
              started();
              await released;
            }
          },
          concurrency: { key: () => "acct", limit: 1 },
        },
      };
      const old = createTickq({ redis: adapter(), prefix: "{tq}:", jobs, logger: QUIET });
      await old.enqueue("sync", ["long"]);
      const ticking = old.tick({ budgetMs: 20_000 });
      await running;
      await old.enqueue("sync", ["later"], { delayMs: HOUR });
      const options = { redis: adapter(), prefix: "tq:", from: "{tq}:", partitions: 3, leave: true, logger: QUIET };
      try {
        await expect(migratePartitions(options)).rejects.toMatchObject({
          code: "BAD_OPTIONS",
          message: expect.stringMatching(/1 jobs were not moved.*concurrency key.*acct.*run the migration again/s),
        });
        expect(await old.stats()).toMatchObject({ scheduled: 1 });
      } finally {
        release();
        await ticking;
      }
      expect(await migratePartitions(options)).toMatchObject({ partitions: 3, moved: { scheduled: 1 }, left: [] });
      const tq = createTickq({ redis: adapter(), prefix: "tq:", partitions: 3, jobs, logger: QUIET });
      expect(await tq.stats()).toMatchObject({ scheduled: 1 });
      expect(ran).toEqual(["long"]);
    }, 60_000);
  },
);
