// Expiry (src/expiry/): a job enqueued with expiresInMs that has not started
// by then never starts. The fetch that takes it records it as expired (the
// `expired` history, stat:expired, the `expired` event, tq.jobs.result) and
// reads on to fill its batch, wherever the job waited: at the head of its
// queue, in a paused queue, in the delayed set, or waiting for a retry.
import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/index.js";
import type { ExpiredEvent } from "../../../src/tick/events.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(adapterCases)("expiry over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "expiry");
  const { call } = scriptCalls(h);

  it("an expired job is never started: recorded as expired, counted, announced, and the batch is filled", async () => {
    const ran: string[] = [];
    const events: ExpiredEvent[] = [];
    const tq = h.make({ work: ([tag]: [string]) => void ran.push(tag) }, { on: { expired: (e) => events.push(e) } });
    const a = await tq.enqueue("work", ["a"], { expiresInMs: 20, kick: false });
    const b = await tq.enqueue("work", ["b"], { expiresInMs: 20, kick: false });
    for (const tag of ["c", "d", "e"]) await tq.enqueue("work", [tag], { kick: false });
    const f = await tq.enqueue("work", ["f"], { expiresInMs: 60_000, kick: false });
    await sleep(60);

    const report = await tq.tick();
    expect(ran).toEqual(["c", "d", "e", "f"]);
    expect(report.expired).toBe(2);
    expect(events.map((e) => [e.jid, e.name, e.queue, e.args])).toEqual([
      [a, "work", "default", ["a"]],
      [b, "work", "default", ["b"]],
    ]);
    expect((await tq.stats()).expired).toBe(2);
    const page = await tq.jobs.list("expired");
    expect(page.jobs.map((j) => j.jid).sort()).toEqual([a, b].sort());
    const result = await tq.jobs.result(a);
    expect(result).toMatchObject({ state: "expired" });
    if (result.state !== "expired") throw new Error("not expired");
    expect(result.expiredAt).toBeGreaterThanOrEqual(result.expiresAt);
    expect((await tq.jobs.find(b))?.state).toBe("expired");
    // The job with time left ran: its expiry was shown while it waited, and nothing else expired.
    expect(await tq.jobs.find(f)).toBeNull();
  });

  it("the fetch fills its batch past expired jobs at the head of the queue", async () => {
    const tq = h.make({ work: () => {} });
    for (let k = 0; k < 4; k++) await tq.enqueue("work", [k], { expiresInMs: 10, kick: false });
    for (let k = 4; k < 7; k++) await tq.enqueue("work", [k], { kick: false });
    await sleep(40);
    const begin = { tick: "t1", leaseMs: 5_000, batch: 3 };
    await call(protocol.begin, beginKeys(begin), beginNamed(begin));
    const fetched = await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
    expect(fetched.map((j) => (JSON.parse(j) as { args: number[] }).args[0]).sort()).toEqual([4, 5, 6]);
    expect(await h.redis.zcard(`${h.prefix}expired`)).toBe(4);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(0);
  });

  it("a job waiting in a paused queue past its expiry is recorded as expired once the queue resumes, never run", async () => {
    let ran = 0;
    const tq = h.make({ work: () => void ran++ });
    await tq.queues.pause("default");
    const jid = await tq.enqueue("work", [], { expiresInMs: 30, kick: false });
    expect((await tq.jobs.find(jid))?.expiresAt).toBeGreaterThan(0);
    await sleep(60);
    await tq.tick({ budgetMs: 500 });
    expect((await tq.jobs.find(jid))?.state).toBe("queued"); // paused: not fetched, not yet recorded
    await tq.queues.resume("default");
    expect((await tq.tick()).expired).toBe(1);
    expect(ran).toBe(0);
    expect((await tq.jobs.result(jid)).state).toBe("expired");
  });

  it("a delayed job due after its expiry is never run", async () => {
    let ran = 0;
    const tq = h.make({ work: () => void ran++ });
    const jid = await tq.enqueue("work", [], { delayMs: 40, expiresInMs: 20, kick: false });
    await sleep(80);
    expect((await tq.tick()).expired).toBe(1);
    expect(ran).toBe(0);
    expect((await tq.jobs.find(jid))?.state).toBe("expired");
  });

  it("a retry due after the job's expiry is not started", async () => {
    let runs = 0;
    const tq = h.make({
      flaky: {
        perform: () => {
          runs++;
          throw new Error("first run fails");
        },
        retry: 3,
      },
    });
    const jid = await tq.enqueue("flaky", [], { expiresInMs: 1_500, kick: false });
    await tq.tick();
    expect(runs).toBe(1);
    expect((await tq.jobs.find(jid))?.state).toBe("retry");
    await sleep(1_550);
    await tq.jobs.runNow(jid); // due now, past its expiry
    expect((await tq.tick()).expired).toBe(1);
    expect(runs).toBe(1);
    expect((await tq.jobs.result(jid)).state).toBe("expired");
  });

  it("enqueueAndWait of a job that expires before it starts throws JOB_EXPIRED, and its result says expired", async () => {
    let ran = 0;
    const tq = h.make({ work: () => void ran++ });
    const waiting = tq
      .enqueueAndWait("work", [], { expiresInMs: 20, kick: false, timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    // enqueueAndWait resolves only at the end: its enqueue has landed once the job is queued, and
    // its expiry counts from then (a busy machine can take longer than the expiry to send it).
    while ((await h.redis.llen(`${h.prefix}queue:default`)) === 0) await sleep(5);
    await sleep(60);
    expect((await tq.tick()).expired).toBe(1);
    const error = await waiting;
    expect(error).toBeInstanceOf(TickqError);
    expect(error).toMatchObject({ code: "JOB_EXPIRED" });
    expect(ran).toBe(0);
    const keys = await h.redis.keys(`${h.prefix}result:*`);
    expect(keys).toHaveLength(1);
    const jid = keys[0]!.slice(`${h.prefix}result:`.length);
    expect(await tq.jobs.result(jid)).toMatchObject({ state: "expired" });
  });

  it("refuses an expiry that is not a positive integer, or one on a job with flow control", async () => {
    const tq = h.make({ work: () => {}, once: { perform: () => {}, uniqueKey: () => "k" } });
    for (const expiresInMs of [0, -5, 1.5, Number.NaN])
      await expect(tq.enqueue("work", [], { expiresInMs })).rejects.toMatchObject({ code: "BAD_ARGS" });
    const error = await tq.enqueue("once", [], { expiresInMs: 1_000, unique: "until-executed" }).catch((e) => e);
    expect(error).toBeInstanceOf(TickqError);
    expect(error).toMatchObject({ code: "BAD_ARGS" });
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);
  });
});
