// A job a release sent on, then deferred by its rate limit without taking the
// slot, and then deleted from the schedule (tq.jobs.delete, run now then a
// delete, deleteAll("scheduled")): the delete moves the key's next parked job
// on, so a free key never keeps jobs parked (F.unstrand, move.lua, clear.lua).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { acksOf, finishArgs, jobsOf, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const beginArgs = (tick: string, fetch: number) => beginNamed({ tick, leaseMs: LEASE, batch: fetch });

describe.each(adapterCases)("a sent-on job deferred by its rate limit, then deleted, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "adv2-deferred-strand");
  const { call } = scriptCalls(h);
  const key = (name: string) => `${h.prefix}${name}`;
  const jobs = {
    // one at a time per account, and at most one start a minute
    sync: {
      perform: () => {},
      concurrency: { key: () => "acct", limit: 1 },
      rateLimit: { key: () => "acct", limit: 1, periodMs: 60_000 },
    },
  };

  const deferredSentOn = async () => {
    const tq = h.make(jobs);
    await tq.enqueue("sync", ["h"], { jid: "holder" });
    // Another tick starts the holder: it takes the slot and the rate limit's one start.
    const [held] = jobsOf((await call(protocol.begin, tickKeys("t0"), beginArgs("t0", 1))).fetched);
    expect(JSON.parse(held!.raw).jid).toBe("holder");
    // p1, p2 arrive while it runs: parked at enqueue.
    await tq.enqueue("sync", ["p1"], { jid: "p1" });
    await tq.enqueue("sync", ["p2"], { jid: "p2" });
    expect(await h.redis.llen(key("flow:park:c:sync:acct"))).toBe(2);
    // The holder is done: its release sends p1 to the queue.
    await call(
      protocol.finish,
      tickKeys("t0"),
      finishArgs({ tick: "t0", leaseMs: LEASE, call: 2, acks: acksOf([{ kind: "succeeded", job: held! }]) }),
    );
    // This tick's fetch finds p1 over its rate limit: deferred to the schedule; the slot stays free.
    await call(protocol.begin, tickKeys("t1"), beginArgs("t1", 10));
    expect((await tq.jobs.find("p1"))?.state).toBe("scheduled");
    expect(await h.redis.hlen(key("flow:held:c:sync:acct"))).toBe(0);
    expect(await h.redis.llen(key("flow:park:c:sync:acct"))).toBe(1);
    return tq;
  };

  // What a delete of the sent-on job must leave: the next job moved on (queued, to be deferred or run in turn).
  const movedOn = async (tq: ReturnType<typeof h.make>) => {
    expect.soft(await h.redis.llen(key("flow:park:c:sync:acct"))).toBe(0);
    expect.soft((await tq.jobs.find("p2"))?.waitingOn).toBeUndefined();
    expect((await tq.stats()).flow.sync!.waiting).toBe(0);
  };

  it("tq.jobs.delete of it moves the next parked job on", async () => {
    const tq = await deferredSentOn();
    await tq.jobs.delete("p1");
    await movedOn(tq);
  });

  it("run now (its text changes: enqueued_at), then a delete from its queue, moves the next parked job on", async () => {
    const tq = await deferredSentOn();
    await tq.jobs.runNow("p1");
    expect((await tq.jobs.find("p1"))?.state).toBe("queued");
    expect(await h.redis.llen(key("flow:park:c:sync:acct"))).toBe(1); // still sent on: nothing more moves
    await tq.jobs.delete("p1");
    await movedOn(tq);
  });

  it('deleteAll("scheduled") (clear.lua) moves the next parked job on', async () => {
    const tq = await deferredSentOn();
    expect(await tq.jobs.deleteAll("scheduled")).toBe(1);
    await movedOn(tq);
  });
});
