// A fetch reads one due id past what it takes (lib/ordered/fetch-ids.lua), so a fetch that filled
// its batch knows whether it left any behind: when it left none, the tick runs what it has and acks
// it in finish, with no step between that would fetch nothing (issue 46: a wave of ordered ids in
// two round trips, not three). When an id is still due, the tick steps and fetches it as before.
// A capped id (maxPayloads) whose rest waits behind its run is due again once acked: a tick that took
// everything due then acks the whole batch in one step that takes those ids again, a step a batch.
import { describe, expect, it } from "vitest";
import { createTickq, type RedisAdapter, type Schedules } from "../../../src/index.js";
import { scripts } from "../../../src/lua/index.js";
import { decode } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import { scriptSha } from "../../../src/redis/script-sha.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { MINUTE, redisNowMs, setClock } from "../recurring/clock.js";

describe.each(adapterCases)("a tick whose batch took every due ordered id, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-drained");
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `id-${i}`);
  // Step calls counted by script (a lease extend, which a loaded machine may add, is not one), and
  // those that fetched nothing, neither jobs nor ids, though sent once a reply had said nothing was
  // left due: what a tick that knew it had taken everything skips. Over TCP a second step may already
  // be queued beside the one whose reply says so (pipeline.ts): sent before the tick knew, it is no such step.
  let steps = 0;
  let emptySteps = 0;
  let drainedSeen = false;
  const counting = async (adapter: RedisAdapter): Promise<RedisAdapter> => {
    const sha = await scriptSha(scripts.step);
    const counted = async (reply: ReturnType<RedisAdapter["evalsha"]>) => {
      steps++;
      const sentKnowing = drainedSeen;
      const stepped = decode(protocol.step, await reply) as {
        fetched: { jobs: string[] }[];
        ordered?: unknown[];
        drained?: boolean;
      };
      const empty = stepped.fetched.every((g) => g.jobs.length === 0) && (stepped.ordered ?? []).length === 0;
      if (empty && sentKnowing) emptySteps++;
      if (stepped.drained) drainedSeen = true;
      return reply;
    };
    return {
      ...adapter,
      evalsha: (s, keys, args) =>
        s === sha ? counted(adapter.evalsha(s, keys, args)) : adapter.evalsha(s, keys, args),
      eval: (text, keys, args) =>
        text === scripts.step.text ? counted(adapter.eval(text, keys, args)) : adapter.eval(text, keys, args),
      wait: adapter.wait?.bind(adapter),
    };
  };
  const QUIET = { info() {}, warn() {}, error() {} };

  const drain = async (count: number, plain = 0) => {
    const ran: string[] = [];
    const tq = createTickq({
      redis: await counting(h.adapter),
      prefix: h.prefix,
      logger: QUIET,
      jobs: { noop: () => void ran.push("plain") },
      // `other` never has an id: the fetch looks whether it has one due (fetch-ids.lua's due_ids).
      ordered: { idx: { perform: (id: string) => void ran.push(id) }, other: { perform: () => {} } },
    });
    steps = 0;
    emptySteps = 0;
    drainedSeen = false;
    await tq.enqueueOrderedBulk(ids(count).map((id) => ({ name: "idx" as const, id, payload: id })));
    if (plain > 0) await tq.enqueueBulk(Array.from({ length: plain }, () => ({ name: "noop" as const, args: [] })));
    const report = await tq.tick({ batch: 10, concurrency: 10 });
    return { report, ran, steps, emptySteps, stats: await tq.stats() };
  };

  it("acks a full batch that left nothing due in finish: begin and finish, no step", async () => {
    const { report, ran, steps, stats } = await drain(10);
    expect(report).toMatchObject({ fetched: 10, succeeded: 10, more: false });
    expect(steps).toBe(0);
    expect(ran.sort()).toEqual(ids(10).sort());
    expect(stats).toMatchObject({ processed: 10, inflight: 0, ordered: { idx: { waiting: 0, running: 0 } } });
  });

  it("steps for an id still due past a full batch", async () => {
    const { report, ran, steps, stats } = await drain(11);
    expect(report).toMatchObject({ fetched: 11, succeeded: 11, more: false });
    expect(steps).toBeGreaterThan(0);
    expect(ran).toHaveLength(11);
    expect(stats).toMatchObject({ processed: 11, ordered: { idx: { waiting: 0, running: 0 } } });
  });

  it("asks no step past a step's full fetch that left nothing due", async () => {
    const { report, steps, emptySteps, stats } = await drain(20);
    expect(report).toMatchObject({ fetched: 20, succeeded: 20, more: false });
    expect(steps).toBeGreaterThan(0);
    expect(drainedSeen).toBe(true); // a step's reply said it left nothing due
    expect(emptySteps).toBe(0);
    expect(stats).toMatchObject({ processed: 20, ordered: { idx: { waiting: 0, running: 0 } } });
  });

  it("steps for plain jobs left behind a batch that ordered ids and plain jobs filled", async () => {
    // Half the batch goes to ordered ids first, then plain jobs fill the rest: 6 plain jobs are left.
    const { report, ran, steps } = await drain(5, 11);
    expect(report).toMatchObject({ fetched: 16, succeeded: 16, more: false });
    expect(steps).toBeGreaterThan(0);
    expect(ran.filter((r) => r === "plain")).toHaveLength(11);
  });

  it("drains a capped name's payloads in one tick: each step acks the whole batch and takes its ids again", async () => {
    const runs: string[] = [];
    const live = new Set<string>();
    const tq = createTickq({
      redis: await counting(h.adapter),
      prefix: h.prefix,
      logger: QUIET,
      jobs: {},
      ordered: {
        capped: {
          maxPayloads: 1,
          perform: async (id: string, payloads: number[]) => {
            if (live.has(id)) throw new Error(`${id} overlapped`);
            live.add(id);
            await Promise.resolve();
            runs.push(`${id}:${payloads.join(",")}`);
            live.delete(id);
          },
        },
        other: { perform: () => {} },
      },
    });
    steps = 0;
    await tq.enqueueOrderedBulk(
      [0, 1, 2].flatMap((w) => ids(10).map((id) => ({ name: "capped" as const, id, payload: w }))),
    );
    const report = await tq.tick({ batch: 10, concurrency: 10 });
    expect(report).toMatchObject({ fetched: 30, succeeded: 30, failed: 0, more: false });
    // begin takes the first payload of each id, two steps the second and third, finish acks the last.
    expect(steps).toBe(2);
    expect(report.roundTrips).toBe(4);
    for (const id of ids(10))
      expect(runs.filter((r) => r.startsWith(`${id}:`))).toEqual([`${id}:0`, `${id}:1`, `${id}:2`]);
    expect(await tq.stats()).toMatchObject({ processed: 30, ordered: { capped: { waiting: 0, running: 0 } } });
  });

  it("a tick whose budget ends with payloads behind its capped runs reports more, and the rest run after", async () => {
    const runs: string[] = [];
    const tq = createTickq({
      redis: h.adapter,
      prefix: h.prefix,
      logger: QUIET,
      jobs: {},
      ordered: {
        capped: {
          maxPayloads: 1,
          perform: async (id: string, payloads: number[]) => {
            await new Promise((resolve) => setTimeout(resolve, 50));
            runs.push(`${id}:${payloads.join(",")}`);
          },
        },
      },
    });
    // 20 rounds of 50 ms each: far past a 300 ms budget.
    await tq.enqueueOrderedBulk(
      Array.from({ length: 20 }, (_, w) => ids(5).map((id) => ({ name: "capped" as const, id, payload: w }))).flat(),
    );
    const first = await tq.tick({ batch: 5, concurrency: 5, budgetMs: 300 });
    expect(first.succeeded).toBeLessThan(100);
    expect(first.more).toBe(true);
    for (let k = 0; k < 200 && runs.length < 100; k++) await tq.tick({ batch: 5, concurrency: 5 });
    for (const id of ids(5))
      expect(runs.filter((r) => r.startsWith(`${id}:`))).toEqual(Array.from({ length: 20 }, (_, w) => `${id}:${w}`));
  });

  it("steps for the job a schedule enqueued after a full batch that left nothing due", async () => {
    const ran: string[] = [];
    const schedules: Schedules<"minute"> = { everyMinute: { cron: "* * * * *", job: "minute" } };
    const tq = h.make(
      { minute: () => void ran.push("minute") },
      { schedules, ordered: { idx: { perform: (id: string) => void ran.push(id) } } },
    );
    const start = Math.ceil((await redisNowMs(h.redis)) / MINUTE) * MINUTE + 10_000;
    await setClock(h.redis, [tq], start);
    await tq.tick(); // declares the schedule: its first slot is the next minute
    await setClock(h.redis, [tq], start + MINUTE);
    await tq.enqueueOrderedBulk(ids(10).map((id) => ({ name: "idx" as const, id, payload: id })));
    // begin takes the 10 ids (the whole batch, none left due); the schedule's call then enqueues its job.
    const report = await tq.tick({ batch: 10, concurrency: 10 });
    expect(report).toMatchObject({ recurring: 1, succeeded: 11, more: false });
    expect(ran.filter((r) => r === "minute")).toHaveLength(1);
  });
});
