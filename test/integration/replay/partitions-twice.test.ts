// The partition scripts run twice with the same arguments: the count is
// stored once and answered alike; a migration's mark is set once, with the
// first run's id, and replaced by the new count once; a job is adopted once.
import { describe, expect, it } from "vitest";
import { NOTHING_CARRIED } from "../../../src/partitions/carried.js";
import * as protocol from "../../../src/protocol/index.js";
import { runCall } from "../../../src/protocol/run.js";
import { runScript } from "../../../src/redis/adapter.js";
import type { LuaScript } from "../../../src/redis/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

/** partition_carry_read's answer for a job that depends on nothing. */
const NOTHING_CARRIED_READ = {
  windowFirst: "",
  windowTtl: 0,
  claim: false,
  wait: false,
  deferred: "",
  held: [],
  rate: [],
};

describe.each(adapterCases)("each partition script run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "partitions-replay");
  const { callTwice, call, readsCallTwice } = scriptCalls(h);

  it("partitions: stores the count once and answers it again", async () => {
    const { first, after } = await callTwice(protocol.partitions, { meta: "partitions" }, { count: 3 });
    expect(first).toBe("3");
    expect(after.partitions).toBe("3");
    expect(await call(protocol.partitions, { meta: "partitions" }, { count: 5 })).toBe("3");
  });

  it("partition_shape: reads, writes nothing, and answers alike twice", async () => {
    // One Redis: no count stored and no cluster slots.
    const none = await readsCallTwice(protocol.partition_shape, { meta: "partitions" }, {});
    expect(none).toEqual([
      { stored: "", ranges: [] },
      { stored: "", ranges: [] },
    ]);
    await call(protocol.partitions, { meta: "partitions" }, { count: 3 });
    const stored = await readsCallTwice(protocol.partition_shape, { meta: "partitions" }, {});
    expect(stored).toEqual([
      { stored: "3", ranges: [] },
      { stored: "3", ranges: [] },
    ]);
  });

  it("partition_unmovable: reads, writes nothing, and finds the same ordered ids and runs twice", async () => {
    await h.redis.zadd(`${h.prefix}o:feed:ready`, 1, "a", 2, "b");
    await h.redis.set(`${h.prefix}o:feed:running`, "1");
    await h.redis.zadd(`${h.prefix}o:feed:dead`, 1, "entry");
    // Not counted: a name's counter at 0, and the payloads (zsets, as ordered_enqueue writes them)
    // of ids "ready" and "x:dead", under keys whose last part reads as the ready and dead sets'.
    await h.redis.set(`${h.prefix}o:idle:running`, "0");
    await h.redis.zadd(`${h.prefix}o:feed:p:ready`, 1, "payload", 2, "another");
    await h.redis.zadd(`${h.prefix}o:feed:p:x:dead`, 1, "payload");
    await h.redis.hset(`${h.prefix}wf:counts`, { "running:nap": 1, "sleeping:nap": 2, "completed:nap": 5 });
    await h.redis.hset(`${h.prefix}flow:waiting`, { sync: 2, other: 0 });
    // The whole scan, page by page: SCAN's pages follow the keys of the shared Redis, each page read twice.
    const scan = async () => {
      const found = new Map<string, number>();
      let runs = -1;
      let parked = -1;
      let cursor = "0";
      do {
        // A page may differ between two reads when other tests' writes rehash the keyspace; the whole scan may not.
        const [first] = await readsCallTwice(
          protocol.partition_unmovable,
          { counts: "wf:counts", waiting: "flow:waiting" },
          { cursor },
        );
        if (cursor === "0") (runs = first.runs), (parked = first.parked);
        for (const { key, size } of first.found) found.set(key.slice(h.prefix.length), size);
        cursor = first.cursor;
      } while (cursor !== "0");
      return { found: Object.fromEntries(found), runs, parked };
    };
    const expected = { found: { "o:feed:ready": 2, "o:feed:running": 1, "o:feed:dead": 1 }, runs: 3, parked: 2 };
    expect(await scan()).toEqual(expected);
    expect(await scan()).toEqual(expected);

    // A prefix's glob characters match only themselves: "x*[y]:" finds its own key, not "xZy:"'s.
    const globby = `${h.prefix}x*[y]:`;
    await h.redis.zadd(`${globby}o:feed:ready`, 1, "a");
    await h.redis.zadd(`${h.prefix}xZy:o:feed:ready`, 1, "a");
    const underGlobby = {
      run: (script: LuaScript, keys: string[], args: (string | number)[], trips: { count: number }) =>
        runScript(h.adapter, script, keys, [globby, ...args], trips, 5_000),
    };
    const keys: string[] = [];
    let cursor = "0";
    do {
      const page = await runCall(
        underGlobby,
        protocol.partition_unmovable,
        { counts: `${globby}wf:counts`, waiting: `${globby}flow:waiting` },
        { cursor },
      );
      keys.push(...page.found.map((f) => f.key));
      cursor = page.cursor;
    } while (cursor !== "0");
    expect([...new Set(keys)]).toEqual([`${globby}o:feed:ready`]);
  });

  it("partition_move_begin: marks the move once, keeping the first run's id, and leaves another count alone", async () => {
    await call(protocol.partitions, { meta: "partitions" }, { count: 3 });
    const { first, after } = await callTwice(
      protocol.partition_move_begin,
      { meta: "partitions" },
      { from: 0, to: 5, id: "a1" },
    );
    expect(first).toBe("3>5 a1");
    expect(after.partitions).toBe("3>5 a1");
    // Run again after a cut, with a new id: the mark of the first run stands.
    expect(await call(protocol.partition_move_begin, { meta: "partitions" }, { from: 3, to: 5, id: "b2" })).toBe(
      "3>5 a1",
    );
    expect(await call(protocol.partitions, { meta: "partitions" }, { count: 5 })).toBe("3>5 a1");
    await h.redis.set(`${h.prefix}partitions`, "3");
    expect(await call(protocol.partition_move_begin, { meta: "partitions" }, { from: 4, to: 5, id: "c3" })).toBe("3");
    expect(await call(protocol.partition_move_begin, { meta: "partitions" }, { from: 0, to: 3, id: "c3" })).toBe("3");
    await h.redis.del(`${h.prefix}partitions`);
    expect(await call(protocol.partition_move_begin, { meta: "partitions" }, { from: 0, to: 4, id: "d4" })).toBe(
      "1>4 d4",
    );
  });

  it("partition_move_finish: stores the new count over its own mark once, and over no other", async () => {
    await h.redis.set(`${h.prefix}partitions`, "3>5 a1");
    const { first, after } = await callTwice(
      protocol.partition_move_finish,
      { meta: "partitions" },
      { mark: "3>5 a1", to: 5 },
    );
    expect(first).toBe("5");
    expect(after.partitions).toBe("5");
    await h.redis.set(`${h.prefix}partitions`, "3>6 b2");
    expect(await call(protocol.partition_move_finish, { meta: "partitions" }, { mark: "3>5 a1", to: 5 })).toBe(
      "3>6 b2",
    );
  });

  it("partition_adopt: adopts a job once, even after a tick moved it on", async () => {
    const args = { jid: "j1", score: "0.001", job: '{"jid":"j1","n":1.0}', keepMs: 60_000, ...NOTHING_CARRIED };
    const { first, after } = await callTwice(protocol.partition_adopt, { adopted: "adopted", into: "schedule" }, args);
    expect(first).toBe(1);
    expect(after.schedule).toEqual(['{"jid":"j1","n":1.0}', "0.001"]);
    await h.redis.del(`${h.prefix}schedule`);
    await call(protocol.partition_adopt, { adopted: "adopted", into: "schedule" }, args);
    expect(await h.redis.exists(`${h.prefix}schedule`)).toBe(0);
  });

  it("partition_adopt: writes a flow job's claims, deferral and rate starts with it, once", async () => {
    const now = Number((await h.redis.time())[0]) * 1000;
    const job = `{"tickq_flow":"lim default r 2 3600000 c w|api k1 k1|j2","class":"lim","jid":"j2"}`;
    const args = {
      jid: "j2",
      score: "0.002",
      job,
      keepMs: 60_000,
      ...NOTHING_CARRIED,
      claim: true,
      wait: true,
      deferred: String(now + 60_000),
      rate: [
        { member: "old|7", at: String(now - 1_000) },
        { member: "old|6", at: String(now - 7_200_000) }, // older than the period: left out
      ],
    };
    const { first, after } = await callTwice(protocol.partition_adopt, { adopted: "adopted", into: "schedule" }, args);
    expect(first).toBe(1);
    expect(after).toMatchObject({
      schedule: [job, "0.002"],
      "flow:claim:k1": "j2",
      "flow:wait:k1": "j2",
      "flow:deferred:lim": ["j2", String(now + 60_000)],
      "flow:rate:api": ["old|7", String(now - 1_000)],
    });
    // A claim the new deployment gave another job meanwhile stays that job's: the answer says so.
    await h.redis.set(`${h.prefix}flow:claim:k1`, "other");
    const other = { ...args, jid: "j3", job: job.replace(/j2/g, "j3") };
    expect(await call(protocol.partition_adopt, { adopted: "adopted", into: "schedule" }, other)).toBe(2);
    expect(await h.redis.get(`${h.prefix}flow:claim:k1`)).toBe("other");
  });

  it("partition_carry_read: reads what a flow job holds, writes nothing, and answers alike twice", async () => {
    const now = Number((await h.redis.time())[0]) * 1000;
    const job = `{"tickq_flow":"lim default l 1 r 2 3600000 c|acct api k1|j2","class":"lim","jid":"j2"}`;
    await h.redis.set(`${h.prefix}flow:claim:k1`, "j2");
    await h.redis.zadd(`${h.prefix}flow:deferred:lim`, now + 5_000, "j2");
    await h.redis.zadd(`${h.prefix}flow:rate:api`, now - 1_000, "7", now - 7_200_000, "6");
    await h.redis.hset(`${h.prefix}flow:held:acct`, "t-live j1", "9", "t-dead j0", "8");
    await h.redis.set(`${h.prefix}tick:t-live`, "1", "PX", 60_000);
    const [first, second] = await readsCallTwice(protocol.partition_carry_read, { locks: "flow:locks" }, { job });
    expect(first).toEqual({
      windowFirst: "",
      windowTtl: 0,
      claim: true,
      wait: false,
      deferred: String(now + 5_000),
      held: ["acct"],
      rate: [{ member: "7", at: String(now - 1_000) }],
    });
    expect(second).toEqual(first);
    // Its slot held by a tick whose lease is gone only: nothing holds it back.
    await h.redis.del(`${h.prefix}tick:t-live`);
    const [freed] = await readsCallTwice(protocol.partition_carry_read, { locks: "flow:locks" }, { job });
    expect(freed.held).toEqual([]);
    const [plain] = await readsCallTwice(
      protocol.partition_carry_read,
      { locks: "flow:locks" },
      { job: '{"jid":"x"}' },
    );
    expect(plain).toEqual(NOTHING_CARRIED_READ);
  });

  it("partition_carry_read and partition_adopt: a debounced job carries the window it holds open, once", async () => {
    const job = '{"class":"ping","args":[],"jid":"d1","created_at":1.0,"tickq_debounce":"ping:doc-1"}';
    await h.redis.hset(`${h.prefix}debounce:ping:doc-1`, { jid: "d1", first: "1000", text: job });
    await h.redis.pexpire(`${h.prefix}debounce:ping:doc-1`, 3_600_000);
    const [read] = await readsCallTwice(protocol.partition_carry_read, { locks: "flow:locks" }, { job });
    expect(read).toMatchObject({ windowFirst: "1000", held: [] });
    expect(read.windowTtl).toBeGreaterThan(3_500_000);
    // Adopted under another prefix (the new partition), the window comes with it.
    await h.redis.del(`${h.prefix}debounce:ping:doc-1`);
    const { first, after } = await callTwice(
      protocol.partition_adopt,
      { adopted: "adopted", into: "schedule" },
      {
        jid: "d1",
        score: "5",
        job,
        keepMs: 60_000,
        ...NOTHING_CARRIED,
        windowFirst: "1000",
        windowTtl: read.windowTtl,
      },
    );
    expect(first).toBe(1);
    expect(after).toMatchObject({
      schedule: [job, "5"],
      "debounce:ping:doc-1": { jid: "d1", first: "1000", text: job },
    });
    expect(await h.redis.pttl(`${h.prefix}debounce:ping:doc-1`)).toBeGreaterThan(3_000_000);
  });

  it("partition_jid_sets and partition_jids_read: find and read the remembered jids, write nothing, alike twice", async () => {
    const now = Number((await h.redis.time())[0]) * 1000;
    await h.redis.zadd(`${h.prefix}jids`, now + 60_000, "a", now - 1, "gone");
    const day = 86_400_000;
    const legacy = `${h.prefix}jids:${day}:${Math.floor(now / day)}`;
    await h.redis.sadd(legacy, "b");
    await h.redis.pexpire(legacy, 3_600_000);
    // Redis' clock once the TTL was set: the set lives until at most an hour past it, however long the calls took.
    const [sec, usec] = await h.redis.time();
    const ttlSetBy = Number(sec) * 1000 + Math.ceil(Number(usec) / 1000);
    await h.redis.set(`${h.prefix}jids:not-a-set`, "x");
    // A page may differ between two reads when other tests' writes rehash the shared keyspace (SCAN
    // may then repeat a key, never miss one): the whole scan, each page read twice, finds the same sets.
    const scan = async (pick: 0 | 1) => {
      const sets = new Set<string>();
      let cursor = "0";
      do {
        const pages = await readsCallTwice(protocol.partition_jid_sets, { ids: "jids" }, { cursor });
        for (const set of pages[pick].sets) sets.add(set);
        cursor = pages[pick].cursor;
      } while (cursor !== "0");
      return [...sets];
    };
    expect(await scan(0)).toEqual([legacy]);
    expect(await scan(1)).toEqual([legacy]);
    const [ids, idsAgain] = await readsCallTwice(
      protocol.partition_jids_read,
      { ids: "jids" },
      { cursor: "0", count: 100 },
    );
    expect(ids).toEqual({ cursor: "0", jids: [{ jid: "a", untilMs: String(now + 60_000) }] });
    expect(idsAgain).toEqual(ids);
    const [old] = await readsCallTwice(
      protocol.partition_jids_read,
      { ids: legacy.slice(h.prefix.length) },
      { cursor: "0", count: 100 },
    );
    // Remembered while the set lives (an hour here), never past its bucket's two windows.
    expect(old.jids).toHaveLength(1);
    expect(Number(old.jids[0]!.untilMs)).toBeGreaterThan(now + 3_500_000);
    // (+1: the script adds PTTL, whole ms, to its own clock read in whole ms.)
    expect(Number(old.jids[0]!.untilMs)).toBeLessThanOrEqual(ttlSetBy + 3_600_000 + 1);
  });

  it("partition_jids_adopt: remembers each jid until the later time, once", async () => {
    const now = Number((await h.redis.time())[0]) * 1000;
    await h.redis.zadd(`${h.prefix}jids`, now + 120_000, "kept-longer");
    const jids = [
      { jid: "a", untilMs: String(now + 60_000) },
      { jid: "kept-longer", untilMs: String(now + 30_000) },
      { jid: "forgotten", untilMs: String(now - 1) },
    ];
    const { first, after } = await callTwice(protocol.partition_jids_adopt, { ids: "jids" }, { jids });
    expect(first).toBe(2);
    expect(after.jids).toEqual(["a", String(now + 60_000), "kept-longer", String(now + 120_000)]);
  });

  it("partition_dead_read: reads the first dead entries, writes nothing, and answers alike twice", async () => {
    await h.redis.zadd(`${h.prefix}o:feed:dead`, 2, '{"id":"b"}', 1, '{"id":"a"}', 3, '{"id":"c"}');
    const [first, second] = await readsCallTwice(protocol.partition_dead_read, { dead: "o:feed:dead" }, { count: 2 });
    expect(first).toEqual([
      { entry: '{"id":"a"}', score: "1" },
      { entry: '{"id":"b"}', score: "2" },
    ]);
    expect(second).toEqual(first);
  });

  it("partition_dead_remove: removes the entry once; run again it finds it gone and removes nothing else", async () => {
    await h.redis.zadd(`${h.prefix}o:feed:dead`, 1, '{"id":"a"}', 2, '{"id":"b"}');
    expect(await call(protocol.partition_dead_remove, { dead: "o:feed:dead" }, { entry: '{"id":"a"}' })).toBe(true);
    expect(await call(protocol.partition_dead_remove, { dead: "o:feed:dead" }, { entry: '{"id":"a"}' })).toBe(false);
    expect(await h.redis.zrange(`${h.prefix}o:feed:dead`, "0", "-1")).toEqual(['{"id":"b"}']);
  });
});
