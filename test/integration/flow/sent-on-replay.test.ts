// step and finish say how many parked flow jobs their acks sent back to a
// queue (runnable work the tick reports as `more`), and a fetch says
// whether jobs wait parked: run twice with the same arguments, each call
// answers the same and moves nothing more.
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import type { RedisReply } from "../../../src/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginArgs as encodeBegin, ackArgv, fetchedJobs } from "../../helpers/begin-args.js";

const LEASE = 5_000;
const COMMON = (tick: string) => [tick, LEASE, 100, 3_600];
const FETCH = (n: number) => [n, 1, "default", 0];
const beginArgs = (tick: string) => encodeBegin({ tick, leaseMs: LEASE });
const jidOf = (raw: string) => (JSON.parse(raw) as { jid: string }).jid;

describe.each(adapterCases)("parked jobs sent back, reported over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-sent-on");
  const { run, twice } = scriptCalls(h);
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
    const begun = (await run(scripts.begin, ["ticks", "tick:t1"], beginArgs("t1"))) as RedisReply[];
    const [held] = fetchedJobs(begun[5]);
    expect(jidOf(held!.raw)).toBe("j1");
    return { held: held!, flow: begun[10] };
  };

  it("begin says jobs wait parked; a step whose ack frees the key and fetches nothing says it sent one back", async () => {
    const { held, flow } = await holdOne();
    expect(flow).toEqual([0, expect.any(Number), 1]); // not capped, a fence base, jobs parked
    const { first, after } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      [...COMMON("t1"), 2, ...ackArgv([{ kind: "succeeded", job: held }]), ...FETCH(0)],
    );
    const reply = first as RedisReply[];
    expect(reply[6]).toEqual([]); // no fetch met a flow job
    expect(reply[7]).toBe(1);
    expect((after["queue:default"] as string[]).map(jidOf)).toEqual(["j2"]);
  });

  it("a step whose ack frees the key fetches the job it sent back, in the same call", async () => {
    const { held } = await holdOne();
    const { first } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      [...COMMON("t1"), 2, ...ackArgv([{ kind: "succeeded", job: held }]), ...FETCH(10)],
    );
    const reply = first as RedisReply[];
    expect(fetchedJobs(reply[3]).map((f) => jidOf(f.raw))).toEqual(["j2"]);
    expect(reply[6]).toEqual([0, expect.any(Number), 1]); // j2 gets the next fence; j3 still parked
    expect(reply[7]).toBe(1);
  });

  it("finish says how many jobs its acks sent back", async () => {
    const { held } = await holdOne();
    const { first, after } = await twice(
      scripts.finish,
      ["ticks", "tick:t1"],
      [...COMMON("t1"), 2, ...ackArgv([{ kind: "succeeded", job: held }]), 1, "default"],
    );
    expect((first as RedisReply[])[5]).toBe(1);
    expect((after["queue:default"] as string[]).map(jidOf)).toEqual(["j2"]);
  });

  it("finish with nothing parked says none", async () => {
    const tq = h.make(jobs);
    await tq.enqueue("sync", ["solo"], { unique: "while-executing" });
    const [held] = fetchedJobs(((await run(scripts.begin, ["ticks", "tick:t1"], beginArgs("t1"))) as RedisReply[])[5]);
    const { first } = await twice(
      scripts.finish,
      ["ticks", "tick:t1"],
      [...COMMON("t1"), 2, ...ackArgv([{ kind: "succeeded", job: held! }]), 1, "default"],
    );
    expect((first as RedisReply[])[5]).toBe(0);
  });
});
