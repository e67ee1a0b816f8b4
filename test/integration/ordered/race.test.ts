// The seed's race (lowkiq-article.ru.txt): an indexer reads a record by id
// and writes it to a search index; with parallel workers, worker 1 reads
// v1, the record changes, worker 2 reads v2 and writes it, worker 1 writes
// v1 over it. Here: 4 tick processes run the indexer while 1,000 updates
// hit 150 ids and ticks are SIGKILLed at random (and replaced). At the end
// the index holds the latest version of every id, and the overlap detector
// (a marker per id, set on entry by a live process, cleared on exit) never
// saw two live holders of one id.
import { afterEach, describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { spawnTickChild, waitReady, type TickChild } from "../../helpers/tick-children.js";
import { sleep } from "../../helpers/redis.js";

const TICKS = 4;
const UPDATES = 600;
const IDS = 150;
const LEASE_MS = 1_000;

describe.each(adapterCases)("the seed's race over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-race");
  let children: TickChild[] = [];
  afterEach(async () => {
    await Promise.all(children.map((c) => c.kill()));
    children = [];
  });

  it("the index ends with every id's latest version, and no id ever had two live holders", async () => {
    const spawnTick = () =>
      spawnTickChild("ordered-child.ts", adapterCase, h.redis, h.prefix, {
        MODE: "race",
        LEASE_MS: String(LEASE_MS),
        BUDGET_MS: "3000",
        BATCH: "10",
        CONCURRENCY: "10",
      });
    children = Array.from({ length: TICKS }, spawnTick);
    await waitReady(h.redis, h.prefix, TICKS);
    const tq = h.make({}, { ordered: { work: { perform: () => {} } } }); // enqueues only
    const db = (id: string) => `${h.prefix}test:db:${id}`;

    let updating = true;
    let kills = 0;
    const killer = (async () => {
      while (updating) {
        await sleep(300 + Math.random() * 400);
        const victim = Math.floor(Math.random() * children.length);
        await children[victim]!.kill();
        children[victim] = spawnTick();
        kills++;
      }
    })();
    for (let n = 0; n < UPDATES; n += 10) {
      const ids = Array.from({ length: 10 }, () => `shipment-${Math.floor(Math.random() * IDS)}`);
      const versions = await Promise.all(ids.map((id) => h.redis.incr(db(id)))); // the records change, then their ids are queued
      await tq.enqueueOrderedBulk(
        ids.map((id, k) => ({ name: "work", id, payload: { v: versions[k] }, score: versions[k] })),
      );
      await sleep(30);
    }
    updating = false;
    await killer;
    expect(kills).toBeGreaterThanOrEqual(3);

    // Settle: nothing waiting or running for longer than a lease (a killed tick's ids come back after it).
    let quietSince = 0;
    for (const until = Date.now() + 40_000; Date.now() < until; await sleep(100)) {
      const { waiting, running } = (await tq.stats()).ordered.work!;
      if (waiting + running > 0) quietSince = 0;
      else if (quietSince === 0) quietSince = Date.now();
      else if (Date.now() - quietSince > LEASE_MS * 1.5) break;
    }
    const index = await h.redis.hgetall(`${h.prefix}test:index`);
    const stale: string[] = [];
    for (const id of Object.keys(index)) {
      const latest = await h.redis.get(db(id));
      if (index[id] !== latest) stale.push(`${id}: index ${index[id]}, latest ${latest}`);
    }
    const touched = (await h.redis.keys(`${h.prefix}test:db:*`)).length;
    expect(Object.keys(index)).toHaveLength(touched);
    expect(await h.redis.lrange(`${h.prefix}test:overlaps`, 0, -1)).toEqual([]);
    expect(stale).toEqual([]);
    expect((await tq.stats()).ordered.work).toMatchObject({ waiting: 0, running: 0, payloads: 0, dead: 0 });
    const executions = Number(await h.redis.get(`${h.prefix}test:executions`));
    expect(executions).toBeGreaterThanOrEqual(touched);
    expect(executions).toBeLessThan(UPDATES); // merged: fewer executions than updates
  }, 90_000);
});
