// A run stopped for a lease in doubt (lib/ack.lua's `l`) goes back to the
// head of its queue and is counted in `doubts` once, however often the step
// that settles it reaches Redis; the next fetch answers that count, and a
// settled job takes it with it.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { acksOf, jobsOf, type Outcome, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
const LEASE = 5_000;

describe.each(adapterCases)("a stop in doubt settled twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "doubt-twice");
  const { call, callTwice } = scriptCalls(h);

  const begin = async () => {
    await h.redis.rpush(`${h.prefix}queue:default`, job(2), job(1));
    const begun = await call(
      protocol.begin,
      beginKeys({ tick: "t1", leaseMs: LEASE }),
      beginNamed({ tick: "t1", leaseMs: LEASE }),
    );
    return jobsOf(begun.fetched);
  };
  const step = (call: number, outcomes: Outcome[], batch: number) =>
    stepArgs({ tick: "t1", leaseMs: LEASE, call, acks: acksOf(outcomes), batch });

  it("step: the job goes back once, counted once; the next fetch reads the count", async () => {
    const [first] = await begin();
    const { after } = await callTwice(protocol.step, tickKeys("t1"), step(2, [{ kind: "inDoubt", job: first! }], 0));
    expect(after.doubts).toEqual({ [job(1)]: "1" });
    expect(after["queue:default"]).toEqual([job(1)]);
    expect(after["stat:processed"]).toBeUndefined();

    const stepped = await call(protocol.step, tickKeys("t1"), step(3, [], 10));
    const again = jobsOf(stepped.fetched).find((f) => f.raw === job(1))!;
    expect(again).toMatchObject({ doubts: 1, interruptions: 0, resurrections: 0, suspect: false });

    // Settled (here: succeeded), it takes its count with it.
    const { after: settled } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      step(4, [{ kind: "succeeded", job: again }], 0),
    );
    expect(settled.doubts).toBeUndefined();
  });

  it("step: a job put back in doubt and fetched again by the same call comes back with its count (a replay answers the same)", async () => {
    const [first] = await begin();
    const { first: reply } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      step(2, [{ kind: "inDoubt", job: first! }], 10),
    );
    const again = jobsOf(reply.fetched).find((f) => f.raw === job(1));
    expect(again).toMatchObject({ doubts: 1, interruptions: 0, resurrections: 0, suspect: false });
  });
});
