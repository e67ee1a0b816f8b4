// A step whose ack has no plain entry (an ordered-only tick's, or one that acks nothing yet) reads no
// per-job count hash in the ack (lib/tick/ack-jobs.lua answers nil), and its fetch reads them itself:
// a job a dead tick left behind still comes with its resurrections. Run twice with the same
// arguments, the step answers the same job and counts.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { ENQUEUE_KEYS, enqueueArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });

describe.each(adapterCases)("a step's fetch after an ack of nothing, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "step-counts-empty-ack");
  const { call, callTwice } = scriptCalls(h);

  it("answers the resurrections of the job it fetches", async () => {
    await call(protocol.enqueue, ENQUEUE_KEYS, enqueueArgs("e", [{ job: job(1) }, { job: job(2) }]));
    const options = { tick: "t1", leaseMs: LEASE, batch: 1 };
    const begun = await call(protocol.begin, beginKeys(options), beginNamed(options));
    expect(begun.fetched.map((g) => g.jobs.length)).toEqual([1]);
    // The job left waiting, as stored (enqueue adds its times): a dead tick left it behind twice.
    const [waiting] = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    expect(waiting).toContain('"args":[2]');
    await h.redis.hset(`${h.prefix}resurrections`, waiting!, "2");
    const { first } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, batch: 1 }),
    );
    // callTwice checks that the replay answers the same.
    expect(first.fetched.map((g) => [g.jobs, g.counts.map((c) => c.resurrections)])).toEqual([[[waiting], [2]]]);
  });
});
