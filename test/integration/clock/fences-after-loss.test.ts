// ctx.fence never repeats or goes down, whatever Redis forgets: a failover
// to a replica that missed the last writes, a restart from an older
// snapshot, a wipe. Each is played here on the fencing counters themselves
// (rolled back to an older value, deleted), and on everything under the
// prefix; the fences handed out after must all be larger than every fence
// handed out before, for flow jobs and for ordered ids alike.
import { describe, expect, it } from "vitest";
import type { JobContext, OrderedContext } from "../../../src/index.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { deleteUnder } from "../../helpers/redis.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { idsOf } from "../../helpers/tick-calls.js";

const losses = {
  "the counters rolled back to older values": async (redis: import("ioredis").Redis, prefix: string) => {
    await redis.set(`${prefix}flow:fence`, "2");
    await redis.set(`${prefix}o:work:fence`, "1");
  },
  "the counters lost": async (redis: import("ioredis").Redis, prefix: string) => {
    await redis.del(`${prefix}flow:fence`, `${prefix}o:work:fence`);
  },
  "everything wiped": deleteUnder,
};

describe.each(adapterCases)("fences after Redis forgets over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "fence-loss");

  for (const [loss, forget] of Object.entries(losses)) {
    it(`${loss}: every fence handed out after is larger than every one before`, async () => {
      const fences: { flow: number[]; ordered: number[] } = { flow: [], ordered: [] };
      const tq = h.make(
        {
          once: {
            perform: (_a: [string], ctx: JobContext) => void fences.flow.push(ctx.fence!),
            uniqueKey: ([k]: [string]) => k,
          },
        },
        {
          ordered: {
            work: { perform: (_id: string, _p: unknown[], ctx: OrderedContext) => void fences.ordered.push(ctx.fence) },
          },
        },
      );
      const round = async (tag: string) => {
        await tq.enqueueBulk(
          ["a", "b", "c"].map((k) => ({
            name: "once" as const,
            args: [`${tag}${k}`] as [string],
            unique: "while-executing" as const,
          })),
        );
        await tq.enqueueOrderedBulk(["x", "y"].map((id) => ({ name: "work", id, payload: tag })));
        await tq.tick({ batch: 10 });
      };
      await round("1");
      await round("2");
      const before = { flow: [...fences.flow], ordered: [...fences.ordered] };
      expect(before.flow).toHaveLength(6);
      expect(before.ordered).toHaveLength(4);
      await forget(h.redis, h.prefix);
      await round("3");
      for (const kind of ["flow", "ordered"] as const) {
        const after = fences[kind].slice(before[kind].length);
        expect(after.length).toBeGreaterThan(0);
        expect(Math.min(...after), `${kind} fences after the loss`).toBeGreaterThan(Math.max(...before[kind]));
        expect(new Set(fences[kind]).size).toBe(fences[kind].length);
        expect(fences[kind].every((f) => Number.isSafeInteger(f))).toBe(true);
      }
    });
  }

  it("begin run twice after the counter was rolled back: the same fences, handed out once", async () => {
    const { call, callTwice } = scriptCalls(h);
    await call(
      protocol.ordered_enqueue,
      { names: "ordered" },
      {
        token: "tok",
        tokenMs: 60_000,
        payloads: ["a", "b"].map((id) => ({ name: "work", id, payload: '"p"', score: "", delayMs: 0 })),
      },
    );
    await h.redis.set(`${h.prefix}o:work:fence`, "7");
    const options = { tick: "t1", leaseMs: 5_000, ordered: ["work"] };
    const [sec, usec] = await h.redis.time();
    const { first, after } = await callTwice(protocol.begin, beginKeys(options), beginNamed(options));
    const fetched = idsOf(first.ordered).map((f) => f.fence);
    expect(fetched).toHaveLength(2);
    expect(fetched[0]).toBeGreaterThanOrEqual(Number(sec) * 1e6 + Number(usec)); // never below Redis' time in µs
    expect(after["o:work:fence"]).toBe(String(Math.max(...fetched)));
  });
});
