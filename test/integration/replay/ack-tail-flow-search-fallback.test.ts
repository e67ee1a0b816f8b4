// A batch cut whole from the tail (lib/tick/ack-jobs.lua) looks for `{"t` in its joined value to tell
// whether any of its jobs is a flow job. A hit sends every job of the batch to the per-job check, which
// must still tell a plain job that opens with `{"t` (another client's push: `{"tags":…`) or holds
// `{"tickq_flow"` in its args from a flow job: each flow job frees its unique key once, no plain job
// touches flow control, and the ack run twice with the same arguments counts every job once.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { acksOf, jobsOf, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
/** A plain job as another client pushes it: its first field opens with 't', as a flow job's does. */
const PUSHED = '{"tags":["x"],"class":"plain","args":[],"jid":"pushed1","queue":"default","enqueued_at":1}';

describe.each(adapterCases)('a tail batch whose joined value holds {"t, run twice, over $name', (adapterCase) => {
  const h = useHarness(adapterCase, "replay-tail-flow-search");
  const { call, callTwice } = scriptCalls(h);

  it("frees each flow job's key once and leaves plain look-alikes to plain settling", async () => {
    const tq = h.make({ sync: { perform: () => {}, uniqueKey: ([k]: [string]) => k }, plain: () => {} });
    await tq.enqueue("plain", ['{"tickq_flow":"sync default u|u:b|jid"}']);
    await h.redis.rpush(`${h.prefix}queue:default`, PUSHED);
    await tq.enqueueBulk([
      { name: "sync", args: ["a"], unique: "while-executing" },
      { name: "plain", args: ['\u001e{"t'] },
    ]);
    const begun = await call(protocol.begin, tickKeys("t1"), beginNamed({ tick: "t1", leaseMs: LEASE, batch: 4 }));
    const jobs = jobsOf(begun.fetched);
    expect(jobs.map((j) => j.raw).sort()).toContain(PUSHED);
    expect(jobs).toHaveLength(4);
    expect(await h.redis.get(`${h.prefix}flow:owner:u:a`)).toBe("t1");
    const acks = acksOf(jobs.map((job) => ({ kind: "succeeded" as const, job })));
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks, batch: 0 }),
    );
    expect(first.missed).toEqual([]);
    expect(after["stat:processed"]).toBe("4");
    expect(after["inproc:t1:default"]).toBeUndefined();
    expect(after["flow:owner:u:a"]).toBeUndefined();
    expect(after["flow:owner:u:b"]).toBeUndefined();
  });

  it('a batch of plain jobs whose args hold {"tickq_flow" is settled once, as plain', async () => {
    const tq = h.make({ plain: () => {} });
    await h.redis.set(`${h.prefix}flow:owner:u:b`, "other-tick");
    await tq.enqueueBulk([
      { name: "plain", args: ['{"tickq_flow":"sync default u|u:b|jid"}'] },
      { name: "plain", args: [{ tickq_flow: "sync default u|u:b|jid" }] },
    ]);
    const begun = await call(protocol.begin, tickKeys("t1"), beginNamed({ tick: "t1", leaseMs: LEASE, batch: 2 }));
    const jobs = jobsOf(begun.fetched);
    const acks = acksOf(jobs.map((job) => ({ kind: "succeeded" as const, job })));
    const { after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks, batch: 0 }),
    );
    expect(after["stat:processed"]).toBe("2");
    expect(after["flow:owner:u:b"]).toBe("other-tick");
  });
});
