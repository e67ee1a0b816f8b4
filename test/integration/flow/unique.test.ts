// until-executed and coalesce, decided in enqueue.lua atomically with the
// push: concurrent duplicates make one job; a claim lasts from enqueue to
// success or death (a retry keeps it); coalesce keeps one waiting run.
import { describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("unique enqueue over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-unique");

  it("until-executed: 50 concurrent enqueues of one key make one job with one jid", async () => {
    const jobs = { sync: { perform: () => {}, uniqueKey: ([id]: [string]) => `acct:${id}` } };
    const connections = Array.from({ length: 5 }, () => adapterCase.open());
    try {
      const clients = connections.map((c) => createTickq({ redis: c.adapter, prefix: h.prefix, jobs }));
      const jids = await Promise.all(
        Array.from({ length: 50 }, (_, i) => clients[i % 5]!.enqueue("sync", ["42"], { unique: "until-executed" })),
      );
      expect(new Set(jids).size).toBe(1);
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
  });

  it("until-executed: a duplicate with its own jid, sent again, is answered the holder's jid both times", async () => {
    const tq = h.make({ sync: { perform: () => {}, uniqueKey: () => "k" } });
    const holder = await tq.enqueue("sync", [], { unique: "until-executed" });
    expect(await tq.enqueue("sync", [], { unique: "until-executed", jid: "dup-1" })).toBe(holder);
    expect(await tq.enqueue("sync", [], { unique: "until-executed", jid: "dup-1" })).toBe(holder);
  });

  it("until-executed: a retry keeps the claim; success ends it; death ends it", async () => {
    let fail = 2;
    const runs: string[] = [];
    const tq = h.make({
      sync: {
        perform: ([id]: [string], ctx) => {
          runs.push(ctx.jid);
          if (id === "x" && fail-- > 0) throw new Error("flaky");
          if (id === "doomed") throw new Error("always");
        },
        retry: 1,
        backoff: () => 0,
      },
    });
    const first = await tq.enqueue("sync", ["x"], { unique: "until-executed" });
    await tq.tick({ budgetMs: 2_000 }); // fails: to the retry set, claim kept
    expect(await tq.enqueue("sync", ["x"], { unique: "until-executed" })).toBe(first);
    await sleep(1_100);
    await tq.tick({ budgetMs: 2_000 }); // retried, fails again: dead (retry: 1), claim ends
    const second = await tq.enqueue("sync", ["x"], { unique: "until-executed" });
    expect(second).not.toBe(first);
    await tq.tick({ budgetMs: 2_000 }); // succeeds: claim ends
    const third = await tq.enqueue("sync", ["x"], { unique: "until-executed" });
    expect(third).not.toBe(second);
    expect(runs).toEqual([first, first, second]);
    // a scheduled job holds its claim too
    const later = await tq.enqueue("sync", ["y"], { unique: "until-executed", delayMs: 60_000 });
    expect(await tq.enqueue("sync", ["y"], { unique: "until-executed" })).toBe(later);
  });

  it("coalesce: a duplicate while one waits gets its jid; 20 enqueues during a run make exactly one more run", async () => {
    let runs = 0;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const tq = h.make({
      rebuild: {
        perform: async () => {
          runs++;
          started();
          await sleep(500);
        },
        uniqueKey: () => "index",
      },
    });
    const waiting = await tq.enqueue("rebuild", [], { unique: "coalesce" });
    expect(await tq.enqueue("rebuild", [], { unique: "coalesce" })).toBe(waiting);
    const tick = tq.tick({ budgetMs: 3_000 });
    await running;
    const during = await Promise.all(
      Array.from({ length: 20 }, () => tq.enqueue("rebuild", [], { unique: "coalesce" })),
    );
    expect(new Set(during).size).toBe(1);
    expect(during[0]).not.toBe(waiting);
    await tick;
    for (let round = 0; round < 5 && runs < 2; round++) await tq.tick({ budgetMs: 2_000 });
    await tq.tick({ budgetMs: 500 });
    expect(runs).toBe(2);
  });
});
