// The results section of an ack (lib/results/keep-results.lua), run twice
// with the same arguments: the second run keeps nothing again and writes no
// result again; the reads (result, locate's succeeded stage) write nothing.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import {
  type AckArgs,
  ENQUEUE_KEYS,
  enqueueArgs,
  finishArgs,
  rawAcks,
  stepArgs,
  tickKeys,
} from "../../helpers/tick-calls.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n, 1.0], jid: `j${n}`, queue: "default", retry: true });
const LEASE = 5_000;
const TTL = 3_600_000;

describe.each(adapterCases)("results section run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "results-replay");
  const { call, callTwice, readsCallTwice } = scriptCalls(h);
  const begin = (batch?: number) =>
    call(protocol.begin, beginKeys({ tick: "t1", leaseMs: LEASE }), beginNamed({ tick: "t1", leaseMs: LEASE, batch }));
  const step = (acks: AckArgs) => stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks });
  const finish = (acks: AckArgs) => finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks });
  /** The results trailer: keep `keep` succeeded jobs for a day; awaited results live TTL. */
  const results = (keep: number, entries: NonNullable<AckArgs["others"]["results"]>["entries"]) => ({
    keep,
    ageSec: 86_400,
    ttlMs: TTL,
    entries,
  });

  const fetchThree = async () => {
    await call(
      protocol.enqueue,
      ENQUEUE_KEYS,
      enqueueArgs(
        "t",
        [1, 2, 3].map((n) => ({ job: job(n) })),
      ),
    );
    await begin();
    return (await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)) as [string, string, string];
  };
  // a and b succeeded (both kept, b awaited as j2), c died awaited as j3: entries 1, 2, 3.
  const acks = (a: string, b: string, c: string): AckArgs => ({
    succeeded: [{ queue: "default", place: "", jobs: [a, b] }],
    others: {
      items: [{ code: "d", queue: "default", job: c, updated: `${c.slice(0, -1)},"error_class":"E"}`, delay: 0 }],
      results: results(10, [
        { number: 1, state: "succeeded", keep: true, jid: "", members: '"tickq_result":{"w":1},"tickq_duration_ms":3' },
        { number: 2, state: "succeeded", keep: true, jid: "j2", members: '"tickq_result":2,"tickq_duration_ms":4' },
        { number: 3, state: "dead", keep: false, jid: "j3", members: '"error":{"class":"E","message":"m"}' },
      ]),
    },
  });

  it("step: a replay keeps and writes each result once", async () => {
    const [a, b, c] = await fetchThree();
    const { after } = await callTwice(protocol.step, tickKeys("t1"), step(acks(a, b, c)));
    expect(after.succeeded).toHaveLength(4); // two members, two scores
    expect(after["result:j2"]).toMatch(
      /^\{"state":"succeeded","finished_at":\d+,"tickq_result":2,"tickq_duration_ms":4\}$/,
    );
    expect(after["result:j3"]).toMatch(/"state":"dead".*"error":\{"class":"E","message":"m"\}/);
    expect(after["result:j1"]).toBeUndefined();
    expect(await h.redis.pttl(`${h.prefix}result:j2`)).toBeGreaterThan(TTL - 60_000);
  });

  it("finish: a replay keeps and writes each result once", async () => {
    const [a, b, c] = await fetchThree();
    const { after } = await callTwice(protocol.finish, tickKeys("t1"), finish(acks(a, b, c)));
    expect(after.succeeded).toHaveLength(4);
    expect(after["stat:processed"]).toBe("3");
  });

  it("an ack that finds its job gone (a resurrector put it back) keeps no result for it", async () => {
    const [a, b, c] = await fetchThree();
    await h.redis.lrem(`${h.prefix}inproc:t1:default`, 1, b);
    await call(protocol.step, tickKeys("t1"), step(acks(a, b, c)));
    expect(await h.redis.zcard(`${h.prefix}succeeded`)).toBe(1);
    expect(await h.redis.exists(`${h.prefix}result:j2`)).toBe(0);
  });

  it("extend: a replay writes a job's progress as it was, and a lost lease writes none", async () => {
    await fetchThree();
    const progress = [
      { jid: "j1", value: "0.5" },
      { jid: "j2", value: '{"done":3}' },
    ];
    const { after } = await callTwice(
      protocol.extend,
      { lease: "tick:t1" },
      { tickId: "t1", leaseMs: LEASE, load: "", progress },
    );
    expect(after["progress:j1"]).toBe("0.5");
    expect(after["progress:j2"]).toBe('{"done":3}');
    await h.redis.del(`${h.prefix}tick:t1`);
    const lost = { tickId: "t1", leaseMs: LEASE, load: "", progress: [{ jid: "j3", value: "1" }] };
    expect(await call(protocol.extend, { lease: "tick:t1" }, lost)).toEqual({ extended: false, cancels: [] });
    expect(await h.redis.exists(`${h.prefix}progress:j3`)).toBe(0);
  });

  it("step: progress entries (numbered 0) are written, and again as they were by a replay", async () => {
    const [a] = await fetchThree();
    const acks: AckArgs = {
      succeeded: [{ queue: "default", place: "", jobs: [a] }],
      others: {
        items: [],
        results: results(0, [{ number: 0, state: "progress", keep: false, jid: "j9", members: "0.25" }]),
      },
    };
    const { after } = await callTwice(protocol.step, tickKeys("t1"), step(acks));
    expect(after["progress:j9"]).toBe("0.25");
    expect(after.succeeded).toBeUndefined();
  });

  it("keeps more jobs than one ZADD takes, in one call", async () => {
    const n = 1_500;
    for (let from = 0; from < n; from += 500) {
      const jobs = Array.from({ length: 500 }, (_, k) => job(from + k));
      await call(
        protocol.enqueue,
        ENQUEUE_KEYS,
        enqueueArgs(
          `t${from}`,
          jobs.map((j) => ({ job: j })),
        ),
      );
    }
    await begin(n);
    const fetched = await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
    expect(fetched).toHaveLength(n);
    const entries = fetched.map((_, k) => ({
      number: k + 1,
      state: "succeeded",
      keep: true,
      jid: "",
      members: `"tickq_duration_ms":${k}`,
    }));
    const acks: AckArgs = {
      ...rawAcks({ default: fetched }),
      others: { items: [], results: results(10_000, entries) },
    };
    await callTwice(protocol.finish, tickKeys("t1"), finish(acks));
    expect(await h.redis.zcard(`${h.prefix}succeeded`)).toBe(n);
  });

  it("result and locate's succeeded stage read only", async () => {
    const [a, b, c] = await fetchThree();
    await call(protocol.finish, tickKeys("t1"), finish(acks(a, b, c)));
    await readsCallTwice(protocol.result, { result: "result:j2", progress: "progress:j2" }, {});
    const [found] = await readsCallTwice(
      protocol.locate,
      { queues: "queues", ticks: "ticks" },
      { jid: (JSON.parse(a) as { jid: string }).jid, budget: 20_000, stage: "", position: "0" },
    );
    expect(found.kind === "found" && found.state).toBe("succeeded");
  });
});
