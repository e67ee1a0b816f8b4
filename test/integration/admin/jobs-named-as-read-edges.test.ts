// Edges of naming a job by its text as read (lib/admin/find-as-read.lua): a job whose text is valid
// UTF-8 but holds U+FFFD itself (lossy data upstream) was named by its text before and must still be
// movable wherever it waits; a job with invalid UTF-8 must be found however many others share its score.
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const SCORE = "1900000000.123456";

describe.each(adapterCases)("the jobs API naming by text as read, edges, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "admin-as-read-edges");

  it("delete of a queued priority job whose valid UTF-8 text holds U+FFFD removes it", async () => {
    const tq = h.make({ x: () => {} });
    const jid = await tq.enqueue("x", ["lossy \uFFFD data"], { priority: 5 });
    expect(await tq.jobs.delete(jid)).toMatchObject({ state: "queued", jid });
    expect(await tq.jobs.find(jid)).toBeNull();
  });

  it("cancel of a queued priority job whose valid UTF-8 text holds U+FFFD cancels it", async () => {
    const tq = h.make({ x: () => {} });
    const jid = await tq.enqueue("x", ["lossy \uFFFD data"], { priority: 5 });
    expect(await tq.jobs.cancel(jid)).toEqual({ jid, state: "cancelled", from: "queued" });
  });

  it("retry of a dead job with invalid UTF-8 finds it behind more than 1000 jobs of the same score", async () => {
    const tq = h.make({ x: () => {} });
    const redis: Redis = h.redis;
    // Members of one score sort by their bytes: these 1001 ("class":"a…) come before the bad job ("class":"x").
    const others: (string | Buffer)[] = [];
    for (let k = 0; k < 1001; k++)
      others.push(SCORE, Buffer.from(`{"class":"a","args":[],"jid":"o${k}","queue":"default","retry":3}`));
    await redis.zadd(`${h.prefix}dead`, ...others);
    const bad = Buffer.concat([
      Buffer.from(`{"class":"x","args":["a`),
      Buffer.from("ff", "hex"),
      Buffer.from(`"],"jid":"d1","queue":"default","retry":3,"retry_count":4}`),
    ]);
    await redis.zadd(`${h.prefix}dead`, SCORE, bad);
    expect(await tq.jobs.retry("d1")).toMatchObject({ state: "queued", jid: "d1" });
    expect(await redis.zcard(`${h.prefix}dead`)).toBe(1001);
  });
});

describe.each(adapterCases)("cancel of a running job with invalid UTF-8 in a large batch over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "admin-as-read-inproc");

  it("cancel of it while it runs behind 700 finished, unacked jobs of its tick aborts its handler", async () => {
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const tq = h.make({
      x: () => {},
      y: (_args: [], ctx: { signal: AbortSignal }) =>
        new Promise((_, reject) => {
          started();
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
        }),
    });
    const bad = Buffer.concat([
      Buffer.from(`{"class":"y","args":["a`),
      Buffer.from("ff", "hex"),
      Buffer.from(`"],"jid":"run1","queue":"default","retry":3}`),
    ]);
    // Oldest first at the list's right end (the end ticks take from): 700 quick jobs, then the one that hangs.
    const quick: Buffer[] = [];
    for (let k = 0; k < 700; k++) quick.push(Buffer.from(`{"class":"x","args":[],"jid":"q${k}","queue":"default"}`));
    await h.redis.lpush(`${h.prefix}queue:default`, ...quick, bad);
    await h.redis.sadd(`${h.prefix}queues`, "default");
    const ticking = tq.tick({ budgetMs: 8_000, cancelCheckMs: 300, batch: 1000 });
    await running;
    const cancelled = await tq.jobs.cancel("run1").catch((error: unknown) => error);
    await ticking;
    expect(cancelled).toMatchObject({ jid: "run1", from: "running" });
  });
});
