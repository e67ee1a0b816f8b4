// An ack frees only the unique key of the job it acks: an ack carrying a key
// that is not its job's (a client of another version, a bug in uniqueSlotOf)
// must not free a slot another live tick holds, or a third tick would run
// that key while its holder still runs it (lib/flow/slots.lua, "trusted").
import { describe, expect, it } from "vitest";
import { encodePart } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import { acks as ackPart } from "../../../src/protocol/sections.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { acksOf, jobsOf, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const beginArgs = (tick: string, fetch: number) => beginNamed({ tick, leaseMs: LEASE, batch: fetch });

describe.each(adapterCases)("an ack frees its own job's key only over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "adv-ack-key");
  const { call } = scriptCalls(h);
  const begin = async (tick: string, fetch: number) =>
    jobsOf((await call(protocol.begin, tickKeys(tick), beginArgs(tick, fetch))).fetched);

  it("frees no slot another live tick holds", async () => {
    const tq = h.make({ sync: { perform: () => {}, uniqueKey: ([k]: [string]) => k } });
    await tq.enqueueBulk(
      ["a", "b", "b"].map((k) => ({
        name: "sync" as const,
        args: [k] as [string],
        unique: "while-executing" as const,
      })),
    );
    const [mine] = await begin("t1", 1); // t1 holds u:a
    const [theirs] = await begin("t2", 1); // t2 holds u:b; the other b is queued
    expect(JSON.parse(mine!.raw).args).toEqual(["a"]);
    expect(JSON.parse(theirs!.raw).args).toEqual(["b"]);
    expect(await h.redis.get(`${h.prefix}flow:owner:u:b`)).toBe("t2");

    // t1 acks its job: Lua reads the key from the job itself (the ack names none), so only u:a is freed.
    const acks = acksOf([{ kind: "succeeded", job: mine! }]);
    expect(encodePart(ackPart, acks).some((a) => String(a).startsWith("u:"))).toBe(false);
    await call(protocol.step, tickKeys("t1"), stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks, batch: 0 }));

    expect(await h.redis.get(`${h.prefix}flow:owner:u:a`)).toBeNull();
    expect(await h.redis.get(`${h.prefix}flow:owner:u:b`)).toBe("t2");
    // A third tick must not start the other b while t2 still runs the first.
    expect(await begin("t3", 10)).toEqual([]);
  });
});
