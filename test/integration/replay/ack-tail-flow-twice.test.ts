// A batch cut whole from the tail of a tick's list (lib/tick/ack-jobs.lua take_tail) tells its
// flow jobs by one search of the joined value (a flow job opens it or follows a separator), not a
// call a job: a flow job first in the value or amid plain jobs still frees its unique key when
// acked, and the ack run twice with the same arguments frees it and counts it once.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { acksOf, jobsOf, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;

describe.each(adapterCases)("flow jobs in a batch cut from the tail, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "replay-tail-flow");
  const { call, callTwice } = scriptCalls(h);

  /** Jobs enqueued in this order (a key: a unique job of it; null: a plain job), all fetched by t1's begin. */
  async function fetched(keys: (string | null)[]) {
    const tq = h.make({ sync: { perform: () => {}, uniqueKey: ([k]: [string]) => k }, plain: () => {} });
    await tq.enqueueBulk(
      keys.map((k, n) =>
        k === null
          ? { name: "plain" as const, args: [n] }
          : { name: "sync" as const, args: [k] as [string], unique: "while-executing" as const },
      ),
    );
    const begun = await call(
      protocol.begin,
      tickKeys("t1"),
      beginNamed({ tick: "t1", leaseMs: LEASE, batch: keys.length }),
    );
    const jobs = jobsOf(begun.fetched);
    expect(jobs).toHaveLength(keys.length);
    for (const k of keys) if (k !== null) expect(await h.redis.get(`${h.prefix}flow:owner:u:${k}`)).toBe("t1");
    return jobs;
  }

  async function ackedTwice(keys: (string | null)[]) {
    const jobs = await fetched(keys);
    const acks = acksOf(jobs.map((job) => ({ kind: "succeeded" as const, job })));
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks, batch: 0 }),
    );
    expect(first.missed).toEqual([]);
    expect(after["stat:processed"]).toBe(String(keys.length));
    expect(after["inproc:t1:default"]).toBeUndefined();
    for (const k of keys) if (k !== null) expect(after[`flow:owner:u:${k}`]).toBeUndefined();
  }

  it("a flow job opening the joined value frees its key once", async () => {
    await ackedTwice(["a", null, null]);
  });

  it("a flow job amid plain jobs, and the last, free their keys once", async () => {
    await ackedTwice([null, "b", null, "c"]);
  });

  it("a batch of plain jobs alone is settled once", async () => {
    await ackedTwice([null, null, null]);
  });
});
