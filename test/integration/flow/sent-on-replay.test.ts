// step and finish say how many parked flow jobs their acks sent back to a
// queue (runnable work the tick reports as `more`), and a fetch says
// whether jobs wait parked: run twice with the same arguments, each call
// answers the same and moves nothing more.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { acksOf, finishArgs, jobsOf, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const beginArgs = (tick: string) => beginNamed({ tick, leaseMs: LEASE });
const jidOf = (raw: string) => (JSON.parse(raw) as { jid: string }).jid;

describe.each(adapterCases)("parked jobs sent back, reported over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-sent-on");
  const { call, callTwice } = scriptCalls(h);
  const jobs = { sync: { perform: () => {}, uniqueKey: ([k]: [string]) => k } };

  /** j1 runs in tick t1, j2 and j3 wait parked on its key. */
  const holdOne = async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      [1, 2, 3].map((i) => ({
        name: "sync" as const,
        args: ["k"] as [string],
        unique: "while-executing" as const,
        jid: `j${i}`,
      })),
    );
    const begun = await call(protocol.begin, tickKeys("t1"), beginArgs("t1"));
    const [held] = jobsOf(begun.fetched);
    expect(jidOf(held!.raw)).toBe("j1");
    return { held: held!, flow: begun.flow };
  };

  it("begin says jobs wait parked; a step whose ack frees the key and fetches nothing says it sent one back", async () => {
    const { held, flow } = await holdOne();
    expect(flow).toEqual({ capped: false, fence: expect.any(Number), parked: true }); // not capped, a fence base, jobs parked
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: acksOf([{ kind: "succeeded", job: held }]), batch: 0 }),
    );
    expect(first.flow).toBeUndefined(); // no fetch met a flow job
    expect(first.sentOn).toBe(1);
    expect((after["queue:default"] as string[]).map(jidOf)).toEqual(["j2"]);
  });

  it("a step whose ack frees the key fetches the job it sent back, in the same call", async () => {
    const { held } = await holdOne();
    const { first } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: acksOf([{ kind: "succeeded", job: held }]), batch: 10 }),
    );
    expect(jobsOf(first.fetched).map((f) => jidOf(f.raw))).toEqual(["j2"]);
    expect(first.flow).toEqual({ capped: false, fence: expect.any(Number), parked: true }); // j2 gets the next fence; j3 still parked
    expect(first.sentOn).toBe(1);
  });

  it("finish says how many jobs its acks sent back", async () => {
    const { held } = await holdOne();
    const { first, after } = await callTwice(
      protocol.finish,
      tickKeys("t1"),
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: acksOf([{ kind: "succeeded", job: held }]) }),
    );
    expect(first.sentOn).toBe(1);
    expect((after["queue:default"] as string[]).map(jidOf)).toEqual(["j2"]);
  });

  it("finish with nothing parked says none", async () => {
    const tq = h.make(jobs);
    await tq.enqueue("sync", ["solo"], { unique: "while-executing" });
    const [held] = jobsOf((await call(protocol.begin, tickKeys("t1"), beginArgs("t1"))).fetched);
    const { first } = await callTwice(
      protocol.finish,
      tickKeys("t1"),
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: acksOf([{ kind: "succeeded", job: held! }]) }),
    );
    expect(first.sentOn).toBe(0);
  });
});
