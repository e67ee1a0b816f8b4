// A concurrency slot and a rate log belong to one (job name, key) pair:
// job `A` with key `b:c` and job `A:b` with key `c` (Ruby names such as
// `Foo::Bar` make these real) never share one. Jobs stored by an older
// version under the former key shape keep their slots, parked jobs and
// rate logs, and drain.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import type { JobContext } from "../../../src/job/context.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { sleep } from "../../helpers/redis.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { acksOf, finishArgs, jobsOf, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const beginArgs = (tick: string, fetch: number) => beginNamed({ tick, leaseMs: LEASE, batch: fetch });

describe.each(adapterCases)("flow keys of different job names over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-key-names");
  const { call } = scriptCalls(h);

  it("job A with key b:c and job A:b with key c hold separate concurrency slots", async () => {
    const started = new Set<string>();
    const sawOther: Record<string, boolean> = {};
    // Each waits (up to 3 s) for the other to start: both run at once only if their slots differ.
    const perform = (me: string, other: string) => async (_args: [string], _ctx: JobContext) => {
      started.add(me);
      for (let i = 0; i < 150 && !started.has(other); i++) await sleep(20);
      sawOther[me] = started.has(other);
    };
    const tq = h.make({
      A: { perform: perform("A", "A:b"), concurrency: { key: () => "b:c", limit: 1 } },
      "A:b": { perform: perform("A:b", "A"), concurrency: { key: () => "c", limit: 1 } },
    });
    await tq.enqueue("A", ["x"]);
    await tq.enqueue("A:b", ["x"]);
    const report = await tq.tick({ concurrency: 2 });
    expect(report.succeeded).toBe(2);
    expect(sawOther).toEqual({ A: true, "A:b": true });
  });

  it("job A with key b:c and job A:b with key c keep separate rate logs", async () => {
    const ran: string[] = [];
    const rateLimit = (key: string) => ({ key: () => key, limit: 1, periodMs: 60_000 });
    const tq = h.make({
      A: { perform: () => void ran.push("A"), rateLimit: rateLimit("b:c") },
      "A:b": { perform: () => void ran.push("A:b"), rateLimit: rateLimit("c") },
    });
    await tq.enqueue("A", ["x"]);
    await tq.enqueue("A:b", ["x"]);
    await tq.tick();
    expect(ran.sort()).toEqual(["A", "A:b"]);
  });

  it("jobs stored under the former key shape still wait for their key's holder, then run", async () => {
    const ran: string[] = [];
    const tq = h.make({
      "Foo::Bar": { perform: ([tag]: [string]) => void ran.push(tag), concurrency: { key: () => "k", limit: 1 } },
    });
    await tq.enqueueBulk([
      { name: "Foo::Bar", args: ["held"] },
      { name: "Foo::Bar", args: ["old"] },
    ]);
    // As an older version wrote them: the name unescaped in the key.
    const queue = `${h.prefix}queue:default`;
    const stored = await h.redis.lrange(queue, 0, -1);
    expect(stored.every((job) => job.includes("c:Foo%253A%253ABar:k"))).toBe(true);
    await h.redis.del(queue);
    await h.redis.rpush(queue, ...stored.map((job) => job.replace("c:Foo%253A%253ABar:k", "c:Foo::Bar:k")));

    // Another tick holds the key's one slot with the oldest job.
    const [held] = jobsOf((await call(protocol.begin, tickKeys("t0"), beginArgs("t0", 1))).fetched);
    expect(JSON.parse(held!.raw).args).toEqual(["held"]);
    expect(await tq.tick()).toMatchObject({ succeeded: 0 });
    expect((await tq.stats()).flow["Foo::Bar"]).toMatchObject({ locksHeld: 1, waiting: 1 });

    // A job of the new shape is not held up by the old-shape slot.
    await tq.enqueue("Foo::Bar", ["new"]);
    await tq.tick();
    expect(ran).toEqual(["new"]);

    // The holder finishes: the parked old-shape job runs, and nothing is left held or parked.
    await call(
      protocol.finish,
      tickKeys("t0"),
      finishArgs({ tick: "t0", leaseMs: LEASE, call: 2, acks: acksOf([{ kind: "succeeded", job: held! }]) }),
    );
    await tq.tick();
    expect(ran).toEqual(["new", "old"]);
    expect((await tq.stats()).flow["Foo::Bar"]).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  });
});
