// A run stopped for a lease in doubt (lib/ack.lua's `l`) goes back to the
// head of its queue and is counted in `doubts` once, however often the step
// that settles it reaches Redis; the next fetch answers that count, and a
// settled job takes it with it.
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import type { RedisReply } from "../../../src/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { ackArgv, beginArgs as encodeBegin, fetchedJobs } from "../../helpers/begin-args.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
const FETCH_10 = [10, 1, "default", 0];
const NO_FETCH = [0, 1, "default", 0];
const LEASE = 5_000;
const COMMON = ["t1", LEASE, 100, 3_600];

describe.each(adapterCases)("a stop in doubt settled twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "doubt-twice");
  const { run, twice } = scriptCalls(h);

  const begin = async () => {
    await h.redis.rpush(`${h.prefix}queue:default`, job(2), job(1));
    const begun = (await run(
      scripts.begin,
      ["ticks", "tick:t1"],
      encodeBegin({ tick: "t1", leaseMs: LEASE }),
    )) as RedisReply[];
    return fetchedJobs(begun[5]);
  };

  it("step: the job goes back once, counted once; the next fetch reads the count", async () => {
    const [first] = await begin();
    const acks = ackArgv([{ kind: "inDoubt", job: first! }]);
    const { after } = await twice(scripts.step, ["ticks", "tick:t1"], [...COMMON, 2, ...acks, ...NO_FETCH]);
    expect(after.doubts).toEqual({ [job(1)]: "1" });
    expect(after["queue:default"]).toEqual([job(1)]);
    expect(after["stat:processed"]).toBeUndefined();

    const stepped = (await run(scripts.step, ["ticks", "tick:t1"], [...COMMON, 3, 0, 0, ...FETCH_10])) as RedisReply[];
    const again = fetchedJobs(stepped[3]).find((f) => f.raw === job(1))!;
    expect(again).toMatchObject({ doubts: 1, interruptions: 0, resurrections: 0, suspect: false });

    // Settled (here: succeeded), it takes its count with it.
    const { after: settled } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      [...COMMON, 4, ...ackArgv([{ kind: "succeeded", job: again }]), ...NO_FETCH],
    );
    expect(settled.doubts).toBeUndefined();
  });
});
