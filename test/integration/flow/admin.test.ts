// tq.jobs.delete of a flow job that will never run ends its unique claims,
// so the next enqueue of its key makes a new job; move.lua run twice ends
// them once.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

describe.each(adapterCases)("deleting flow jobs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-admin");
  const QUEUES = { queues: "queues" };
  const DEFAULT_QUEUE = { set: "queue:default" };
  const CLEAR = { token: "tok", keepMs: 60_000 };
  /** move.lua's ARGV for deleting one job from `from`; `distance`: its place hint ("" none). */
  const deleteOne = (token: string, from: string, job: string, distance: string) => ({
    token,
    keepMs: 60_000,
    jobs: [{ from, job, action: "delete", push: "", distance }],
  });
  const jobs = { sync: { perform: () => {}, uniqueKey: ([id]: [string]) => id } };

  it("delete ends an until-executed claim (queued) and a coalesce claim (scheduled)", async () => {
    const tq = h.make(jobs);
    const queued = await tq.enqueue("sync", ["a"], { unique: "until-executed" });
    const scheduled = await tq.enqueue("sync", ["b"], { unique: "coalesce", delayMs: 60_000 });
    await tq.jobs.delete(queued);
    await tq.jobs.delete(scheduled);
    expect(await tq.enqueue("sync", ["a"], { unique: "until-executed" })).not.toBe(queued);
    expect(await tq.enqueue("sync", ["b"], { unique: "coalesce" })).not.toBe(scheduled);
  });

  it("deleteAll of a queue ends its jobs' claims; retrying a dead job takes its claim back", async () => {
    const tq = h.make({
      sync: {
        perform: () => {
          throw new Error("no");
        },
        uniqueKey: ([id]: [string]) => id,
        retry: false,
      },
    });
    const a = await tq.enqueue("sync", ["a"], { unique: "until-executed" });
    await tq.enqueue("sync", ["b"], { unique: "coalesce" });
    expect(await tq.jobs.deleteAll("queued", { queue: "default" })).toBe(2);
    expect(await tq.enqueue("sync", ["a"], { unique: "until-executed" })).not.toBe(a);
    await tq.tick({ budgetMs: 1_000 }); // a and b fail for good: dead, claims end
    const [dead] = await tq.jobs
      .list("dead", { limit: 10 })
      .then((page) => page.jobs.filter((j) => j.job.args[0] === "a"));
    await tq.jobs.retry(dead!.jid);
    expect(await tq.enqueue("sync", ["a"], { unique: "until-executed" })).toBe(dead!.jid);
  });

  it("a job parked on a busy key is found (queued, waiting on its key's park list) and can be deleted", async () => {
    const tq = h.make(jobs);
    await tq.enqueue("sync", ["k"], { unique: "while-executing" });
    await h.redis.set(`${h.prefix}flow:owner:u:k`, "other-tick"); // the key is busy
    const parked = await tq.enqueue("sync", ["k"], { unique: "while-executing" });
    const found = await tq.jobs.find(parked);
    expect(found).toMatchObject({ state: "queued", queue: "default", waitingOn: "flow:park:u:k", jid: parked });
    expect((await tq.stats()).flow.sync!.waiting).toBe(1);
    await tq.jobs.delete(parked);
    expect(await tq.jobs.find(parked)).toBeNull();
    expect((await tq.stats()).flow.sync!.waiting).toBe(0);
    expect(await h.redis.exists(`${h.prefix}flow:park:u:k`, `${h.prefix}flow:parked`)).toBe(0);
  });

  it("move.lua and locate.lua: a parked job's delete, sent twice, takes it out and counts it once", async () => {
    const { callTwice } = scriptCalls(h);
    const tq = h.make(jobs);
    await h.redis.set(`${h.prefix}flow:owner:u:k`, "other-tick");
    const parked = await tq.enqueue("sync", ["k"], { unique: "while-executing" });
    await tq.enqueue("sync", ["k"], { unique: "while-executing" });
    const located = await callTwice(
      protocol.locate,
      { queues: "queues", ticks: "ticks" },
      { jid: parked, budget: 100_000, stage: "", position: "0" },
    );
    expect(located.first).toMatchObject({ kind: "found", state: "queued" });
    const [text] = await h.redis.lrange(`${h.prefix}flow:park:u:k`, -1, -1);
    const { first, after } = await callTwice(protocol.move, QUEUES, deleteOne("tok", "flow:park:u:k", text!, "0"));
    expect(first).toBe("1");
    expect(after["flow:park:u:k"]).toHaveLength(1);
    expect(after["flow:waiting"]).toEqual({ sync: "1" });
    expect(after["flow:parked"]).toEqual(["u:k"]);
  });

  it("clear.lua: a resent deleteAll ends the claims once and leaves a newer holder's alone", async () => {
    const { callTwice, call } = scriptCalls(h);
    const tq = h.make(jobs);
    await tq.enqueue("sync", ["a"], { unique: "until-executed" });
    await tq.enqueue("sync", ["b"], { unique: "coalesce" });
    const { first, after } = await callTwice(protocol.clear, DEFAULT_QUEUE, CLEAR);
    expect(first).toBe(2);
    expect(Object.keys(after).filter((k) => k.startsWith("flow:") || k.startsWith("queue:"))).toEqual([]); // jobs and claims gone
    const next = await tq.enqueue("sync", ["a"], { unique: "until-executed" });
    await call(protocol.clear, DEFAULT_QUEUE, CLEAR);
    expect(await h.redis.get(`${h.prefix}flow:claim:a`)).toBe(next);
  });

  it("move.lua: a resent delete ends the claim once and leaves a newer holder's claim alone", async () => {
    const { callTwice, call } = scriptCalls(h);
    const tq = h.make(jobs);
    const jid = await tq.enqueue("sync", ["a"], { unique: "until-executed" });
    const [text] = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    const { first, after } = await callTwice(protocol.move, QUEUES, deleteOne("tok", "queue:default", text!, "0"));
    expect(first).toBe("1");
    expect(after["flow:claim:a"]).toBeUndefined();
    const next = await tq.enqueue("sync", ["a"], { unique: "until-executed" });
    expect(next).not.toBe(jid);
    await call(protocol.move, QUEUES, deleteOne("tok2", "queue:default", text!, ""));
    expect(await h.redis.get(`${h.prefix}flow:claim:a`)).toBe(next);
  });

  // A release sends one parked job to its queue: the state it leaves, built by hand (the holder's ack would
  // fetch it at once). The key is free, the next job parked.
  const releasedOne = async () => {
    const tq = h.make(jobs);
    await h.redis.set(`${h.prefix}flow:owner:u:k`, "other-tick");
    const sent = await tq.enqueue("sync", ["k"], { unique: "while-executing" });
    const next = await tq.enqueue("sync", ["k"], { unique: "while-executing" });
    await h.redis.del(`${h.prefix}flow:owner:u:k`);
    await h.redis.rpoplpush(`${h.prefix}flow:park:u:k`, `${h.prefix}queue:default`);
    await h.redis.hincrby(`${h.prefix}flow:waiting`, "sync", -1);
    return { tq, sent, next };
  };
  const runsNext = async (tq: ReturnType<typeof h.make>, next: string) => {
    expect(await h.redis.llen(`${h.prefix}flow:park:u:k`)).toBe(0);
    expect((await tq.stats()).flow.sync!.waiting).toBe(0);
    const report = await tq.tick({ budgetMs: 2_000 });
    expect(report.succeeded).toBe(1);
    expect(await tq.jobs.find(next)).toBeNull();
  };

  it("deleting the queued job a release sent on moves the key's next parked job to the queue: it runs, without a new job of the key", async () => {
    const { tq, sent, next } = await releasedOne();
    await tq.jobs.delete(sent);
    await runsNext(tq, next);
  });

  it("clear.lua: clearing that queue moves the next parked job on once the queue is gone, once when sent twice", async () => {
    const { tq, next } = await releasedOne();
    const { first, after } = await scriptCalls(h).callTwice(protocol.clear, DEFAULT_QUEUE, CLEAR);
    expect(first).toBe(1);
    expect((after["queue:default"] as string[]).map((j) => JSON.parse(j).jid)).toEqual([next]);
    await runsNext(tq, next);
  });
});
