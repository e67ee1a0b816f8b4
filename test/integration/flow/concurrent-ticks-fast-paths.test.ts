// Three real ticks at once over a backlog built to hit flow control's fast
// paths and fall off them: every job succeeds exactly once, no key runs twice
// at once, a unique key's fences only grow, and nothing of flow control is
// left at the end. Run over ioredis only.
import { describe, expect, it } from "vitest";
import { createTickq, type JobContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

type A = [key: string, n: number];

describe.each(adapterCases.slice(0, 1))("real ticks over the fast paths, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "adv4-ticks");

  it("three ticks at once: every job succeeds once, no key overlaps, fences grow per unique key, nothing is left", async () => {
    const live = new Map<string, number>();
    const overlaps: string[] = [];
    const done = new Map<string, number>();
    const lastFence = new Map<string, number>();
    const fenceBackwards: string[] = [];
    let seed = 11;
    const rnd = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed / 2 ** 31);
    const around =
      (lockKeys: string[]) =>
      async ([, n]: A, ctx: JobContext) => {
        for (const k of lockKeys) {
          const now = (live.get(k) ?? 0) + 1;
          live.set(k, now);
          if (now > (k.startsWith("c:") ? 2 : 1)) overlaps.push(`${k} x${now} (job ${n})`);
          if (ctx.fence !== undefined && k.startsWith("u:")) {
            if ((lastFence.get(k) ?? 0) >= ctx.fence)
              fenceBackwards.push(`${k}: ${lastFence.get(k)} then ${ctx.fence}`);
            lastFence.set(k, ctx.fence);
          }
        }
        try {
          await sleep(rnd() * 3);
          if (rnd() < 0.1) throw new Error("flaky");
          done.set(ctx.jid, (done.get(ctx.jid) ?? 0) + 1);
        } finally {
          for (const k of lockKeys) live.set(k, live.get(k)! - 1);
        }
      };
    const retry = { retry: 5, backoff: () => 0 };
    const jobs = {
      // (an until-executed job, key e…, holds no slot: its claim is not a lock)
      one: {
        perform: (a: A, ctx: JobContext) => around(a[0].startsWith("e") ? [] : [`u:${a[0]}`])(a, ctx),
        uniqueKey: ([k]: A) => k,
        ...retry,
      },
      two: { perform: (a: A, ctx: JobContext) => around([`u:${a[0]}`])(a, ctx), uniqueKey: ([k]: A) => k, ...retry },
      both: {
        perform: (a: A, ctx: JobContext) => around([`u:${a[0]}`, "c:all"])(a, ctx),
        uniqueKey: ([k]: A) => k,
        concurrency: { key: () => "all", limit: 2 },
        ...retry,
      },
      plain: { perform: (a: A, ctx: JobContext) => around([])(a, ctx), ...retry },
    };
    const tq = h.make(jobs);
    const expected: string[] = [];
    let n = 0;
    const spec = (
      name: "one" | "two" | "both" | "plain",
      key: string,
      unique?: "while-executing" | "coalesce" | "until-executed",
    ) =>
      ({ name, args: [key, n++] as A, ...(name === "plain" ? {} : { unique: unique ?? "while-executing" }) }) as {
        name: "one";
        args: A;
      };
    // runs of distinct keys (the fast path), then runs with duplicates and other shapes mixed in
    for (let round = 0; round < 12; round++) {
      const batch = [];
      for (let i = 0; i < 40; i++) batch.push(spec(round % 2 ? "two" : "one", `r${round}k${i}`));
      for (let i = 0; i < 20; i++) {
        const r = rnd();
        const key = `s${Math.floor(rnd() * 8)}`;
        if (r < 0.4) batch.push(spec("one", key));
        else if (r < 0.6) batch.push(spec("two", key));
        else if (r < 0.7) batch.push(spec("both", key));
        else if (r < 0.8)
          batch.push(rnd() < 0.5 ? spec("one", `m${key}`, "coalesce") : spec("one", `e${key}`, "until-executed"));
        else batch.push(spec("plain", key));
      }
      expected.push(...(await tq.enqueueBulk(batch)));
    }
    const unique = [...new Set(expected)];
    const connections = Array.from({ length: 3 }, () => adapterCase.open());
    try {
      const ticks = connections.map((c) =>
        createTickq({
          redis: c.adapter,
          prefix: h.prefix,
          jobs,
          logger: { info: () => {}, warn: () => {}, error: () => {} },
        }),
      );
      const batches = [1, 7, 50];
      for (let round = 0; round < 60 && unique.some((jid) => !done.has(jid)); round++) {
        await Promise.all(
          ticks.map((t, i) => t.tick({ batch: batches[(i + round) % 3], concurrency: 8, budgetMs: 1_500 })),
        );
      }
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
    expect(overlaps).toEqual([]);
    expect(fenceBackwards).toEqual([]);
    expect(unique.filter((jid) => done.get(jid) !== 1)).toEqual([]);
    expect([...done.keys()].filter((jid) => !unique.includes(jid))).toEqual([]);
    const flowKeys = (await h.redis.keys(`${h.prefix}flow:*`)).map((k) => k.slice(h.prefix.length));
    expect(flowKeys.filter((k) => !["flow:fence", "flow:locks", "flow:waiting"].includes(k))).toEqual([]);
    const stats = await tq.stats();
    for (const name of ["one", "two", "both"])
      expect(stats.flow[name], name).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
    expect(await h.redis.keys(`${h.prefix}queue:*`)).toEqual([]);
    expect(await h.redis.keys(`${h.prefix}inproc:*`)).toEqual([]);
  }, 60_000);
});
