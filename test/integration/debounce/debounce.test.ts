// Debounce (src/debounce/): the job of a key runs delayMs after the last
// enqueue of that key, with the last args, and no later than maxDelayMs
// after the first. Concurrent enqueues of a key all answer the one jid that
// will run (one Lua call each); once that job has left the delayed set, the
// next enqueue opens a new window.
import { describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(adapterCases)("debounce over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "debounce");
  const reindexJob = (ran: string[][], delayMs: number, maxDelayMs: number) => ({
    reindex: {
      perform: (args: [string, string]) => void ran.push(args),
      debounce: { key: ([doc]: [string, string]) => doc, delayMs, maxDelayMs },
    },
  });

  it("50 concurrent enqueues of a key answer one jid, and it runs once with the last args", async () => {
    const ran: string[][] = [];
    const tq = h.make(reindexJob(ran, 100, 10_000));
    const jids = await Promise.all(
      Array.from({ length: 50 }, (_, k) => tq.enqueue("reindex", ["doc1", `v${k}`], { kick: false })),
    );
    const last = await tq.enqueue("reindex", ["doc1", "last"], { kick: false });
    const other = await tq.enqueue("reindex", ["doc2", "x"], { kick: false });
    expect(new Set([...jids, last]).size).toBe(1);
    expect(other).not.toBe(last);
    expect(await h.redis.zcard(`${h.prefix}schedule`)).toBe(2);
    await sleep(150);
    await tq.tick();
    expect(ran.sort()).toEqual([
      ["doc1", "last"],
      ["doc2", "x"],
    ]);
    expect(await h.redis.zcard(`${h.prefix}schedule`)).toBe(0);
  });

  it("runs delayMs after the last enqueue, and never later than maxDelayMs after the first", async () => {
    const tq = h.make(reindexJob([], 200, 300));
    const jid = await tq.enqueue("reindex", ["doc1", "a"], { kick: false });
    // due1 = first + 200 (Redis' clock), so the bound first + 300 is due1 + 100.
    const due1 = (await tq.jobs.find(jid))!.at!;
    await sleep(50);
    await tq.enqueue("reindex", ["doc1", "b"], { kick: false });
    const due2 = (await tq.jobs.find(jid))!.at!;
    // At least 50 ms after the first: moved on by at least that much, at most to the bound.
    expect(due2 - due1).toBeGreaterThanOrEqual(49);
    expect(due2 - due1).toBeLessThanOrEqual(101);
    await sleep(100);
    await tq.enqueue("reindex", ["doc1", "c"], { kick: false });
    // 150 ms or more after the first: 200 ms from now is past the bound, so it is held there.
    const due3 = (await tq.jobs.find(jid))!.at!;
    expect(Math.abs(due3 - (due1 + 100))).toBeLessThanOrEqual(1);
    expect((await tq.jobs.find(jid))!.job.args).toEqual(["doc1", "c"]);
  });

  it("after the job left the delayed set, the next enqueue of its key opens a new window", async () => {
    const ran: string[][] = [];
    const tq = h.make(reindexJob(ran, 30, 1_000));
    const first = await tq.enqueue("reindex", ["doc1", "a"], { kick: false });
    await sleep(60);
    await tq.tick();
    expect(ran).toEqual([["doc1", "a"]]);
    const second = await tq.enqueue("reindex", ["doc1", "b"], { kick: false });
    expect(second).not.toBe(first);
    await sleep(60);
    await tq.tick();
    expect(ran).toEqual([
      ["doc1", "a"],
      ["doc1", "b"],
    ]);
  });

  it("refuses options that fight it, and a definition that also has flow control", async () => {
    const tq = h.make(reindexJob([], 100, 1_000));
    for (const options of [{ delayMs: 5 }, { at: new Date() }, { jid: "mine" }])
      await expect(tq.enqueue("reindex", ["doc1", "a"], options)).rejects.toMatchObject({ code: "BAD_ARGS" });
    const invalid = [
      { delayMs: 0, maxDelayMs: 10 },
      { delayMs: 100, maxDelayMs: 50 },
    ];
    for (const { delayMs, maxDelayMs } of invalid)
      expect(() =>
        createTickq({
          redis: h.adapter,
          prefix: h.prefix,
          jobs: { x: { perform: () => {}, debounce: { key: () => "k", delayMs, maxDelayMs } } },
        }),
      ).toThrow(expect.objectContaining({ code: "BAD_OPTIONS" }));
    expect(() =>
      createTickq({
        redis: h.adapter,
        prefix: h.prefix,
        jobs: {
          x: { perform: () => {}, uniqueKey: () => "u", debounce: { key: () => "k", delayMs: 10, maxDelayMs: 10 } },
        },
      }),
    ).toThrow(/does not combine with flow control/);
    expect(await h.redis.exists(`${h.prefix}schedule`)).toBe(0);
  });
});
