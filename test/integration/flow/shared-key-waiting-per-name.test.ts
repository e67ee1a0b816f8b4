// Two job names whose uniqueKey gives the same key (shared on purpose so the
// two never run at once): a fetch that parks a run of their jobs counts each
// as waiting under its own name, so every name's count ends at 0 once all
// have run (lib/flow/admit.lua).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { acksOf, finishArgs, jobsOf, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const beginArgs = (tick: string, fetch: number) => beginNamed({ tick, leaseMs: LEASE, batch: fetch });

describe.each(adapterCases)("a unique key shared by two job names over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "adv-shared-key");
  const { call } = scriptCalls(h);

  it("parked jobs are counted as waiting for their own names, and the counts end at 0", async () => {
    const ran: string[] = [];
    const perform = ([, tag]: [string, string]) => void ran.push(tag);
    const byKey = ([key]: [string, string]) => key;
    const tq = h.make({ a: { perform, uniqueKey: byKey }, b: { perform, uniqueKey: byKey } });
    await tq.enqueueBulk([
      { name: "a", args: ["k", "h0"], unique: "while-executing" },
      { name: "a", args: ["k", "a1"], unique: "while-executing" },
      { name: "b", args: ["k", "b1"], unique: "while-executing" },
    ]);
    // Another tick takes the key with h0 (the oldest job) and holds it.
    const [held] = jobsOf((await call(protocol.begin, tickKeys("t0"), beginArgs("t0", 1))).fetched);
    expect(JSON.parse(held!.raw).args[1]).toBe("h0");
    // This tick's fetch meets a1 then b1, in one chunk: both park on k.
    await tq.tick({ batch: 10 });
    expect(ran).toEqual([]);
    const parked = (await tq.stats()).flow;
    expect.soft({ a: parked.a!.waiting, b: parked.b!.waiting }).toEqual({ a: 1, b: 1 });

    // t0 is done with h0: the key frees, a1 then b1 run.
    await call(
      protocol.finish,
      tickKeys("t0"),
      finishArgs({ tick: "t0", leaseMs: LEASE, call: 2, acks: acksOf([{ kind: "succeeded", job: held! }]) }),
    );
    for (let i = 0; i < 4 && ran.length < 2; i++) await tq.tick({ batch: 10 });
    expect(ran).toEqual(["a1", "b1"]);
    const after = (await tq.stats()).flow;
    expect(after).toEqual({
      a: { locksHeld: 0, waiting: 0, deferred: 0 },
      b: { locksHeld: 0, waiting: 0, deferred: 0 },
    });
  });
});
