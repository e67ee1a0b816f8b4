// The fan-out slot grant (parallel.lua) and kick.lua's calls, whose reply
// comes later than redisTimeoutMs after Redis ran them (a slow HTTP round
// trip under load): the call is sent again and the replay answers as the
// first run did. Once, they were sent once: a timed-out grant failed its tick
// before begin, and a timed-out take or done failed the kick (seen at load 17),
// leaving the job for a cron that a Worker may not have.
import { describe, expect, it } from "vitest";
import { kick, parallel } from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { holdReplies } from "../../helpers/held-replies.js";

/** The Worker's and the Node server's own: a call merely slow under load is not mistaken for the held one. */
const TIMEOUT_MS = 2_000;

describe.each(adapterCases)("a grant or kick reply later than redisTimeoutMs, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "kick-late-reply");

  it("of the slot grant: the tick sends it again, runs under its one slot and runs every job", async () => {
    const ran: number[] = [];
    await h
      .make({ work: ([i]: [number]) => void ran.push(i) })
      .enqueueBulk(Array.from({ length: 5 }, (_, i) => ({ name: "work", args: [i] })));
    const hold = holdReplies(h.adapter, parallel.script);
    const tq = h.make(
      { work: ([i]: [number]) => void ran.push(i) },
      { redis: hold.adapter, redisTimeoutMs: TIMEOUT_MS },
    );
    hold.arm();
    try {
      const report = await tq.tick({ maxParallel: 1, budgetMs: 20_000, tickId: "late-grant" });
      await hold.held();
      expect(report).toMatchObject({ tickId: "late-grant", succeeded: 5, leaseLost: false });
      expect(report.skipped).toBeFalsy();
    } finally {
      hold.release();
    }
    expect(ran.sort()).toEqual([0, 1, 2, 3, 4]);
    // The replay reserved no second slot: the tick that began holds none once it ended.
    expect((await tq.tick({ maxParallel: 1, budgetMs: 5_000 })).skipped).toBeFalsy();
  });

  it("of a kick's take: the kick sends it again, runs the job and releases its slot", async () => {
    const ran: string[] = [];
    const kept: Promise<unknown>[] = [];
    const hold = holdReplies(h.adapter, kick.script);
    const tq = h
      .make({ mark: ([id]: [string]) => void ran.push(id) }, { redis: hold.adapter, redisTimeoutMs: TIMEOUT_MS })
      .scope({ waitUntil: (p) => void kept.push(p) });
    hold.arm();
    try {
      await tq.enqueue("mark", ["a"], { kick: true });
      await Promise.all(kept);
      await hold.held();
    } finally {
      hold.release();
    }
    expect(ran).toEqual(["a"]);
    expect(await h.redis.zcard(`${h.prefix}kicks`)).toBe(0);
    expect(await tq.stats()).toMatchObject({ processed: 1, inflight: 0, queues: { default: 0 } });
  });

  it("of a kick's done that handed the slot on: the kick sends it again and ticks again for the refused kick", async () => {
    const ran: string[] = [];
    const kept: Promise<unknown>[] = [];
    const hold = holdReplies(h.adapter, kick.script);
    const tq = h
      .make(
        {
          mark: async ([id]: [string]) => {
            ran.push(id);
            if (id !== "a") return;
            // Kicked while a holds the one slot: refused and written down for a's holder, which must tick again.
            await tq.enqueue("mark", ["b"], { kick: true });
            await kept[1];
            hold.arm(); // the kick's next call: done, once a's tick drained
          },
        },
        { redis: hold.adapter, redisTimeoutMs: TIMEOUT_MS, kick: { max: 1 } },
      )
      .scope({ waitUntil: (p) => void kept.push(p) });
    try {
      await tq.enqueue("mark", ["a"], { kick: true });
      await kept[0];
      await hold.held();
    } finally {
      hold.release();
    }
    expect(ran).toEqual(["a", "b"]);
    expect(await h.redis.zcard(`${h.prefix}kicks`)).toBe(0);
    expect(await tq.stats()).toMatchObject({ processed: 2, inflight: 0, queues: { default: 0 } });
  });
});
