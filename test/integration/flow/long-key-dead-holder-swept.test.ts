// A unique key longer than 256 characters is hashed in its descriptor
// ("sha256-…", no "u:" in front); a fetch that finds it held by a tick whose
// lease is gone must take it over at once, as it does a short key
// (lib/flow/slots.lua release()), not leave it until a resurrection.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { jobsOf, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const beginArgs = (tick: string, fetch: number, resurrect: number) =>
  beginNamed({ tick, leaseMs: LEASE, batch: fetch, resurrectLimit: resurrect });

describe.each(adapterCases)("a dead holder of a long unique key over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "adv-long-key");
  const { call } = scriptCalls(h);
  const begin = async (tick: string, fetch: number, resurrect: number) =>
    call(protocol.begin, tickKeys(tick), beginArgs(tick, fetch, resurrect));
  const key = (name: string) => `${h.prefix}${name}`;

  it.each([
    ["a short key", "a"],
    ["a key of 300 characters (hashed)", "L".repeat(300)],
  ])("%s: a fetch that finds it full frees the dead holder's slot and takes it", async (_what, uniqueKey) => {
    const tq = h.make({ sync: { perform: () => {}, uniqueKey: ([k]: [string]) => k } });
    await tq.enqueueBulk(
      [1, 2, 3].map(() => ({
        name: "sync" as const,
        args: [uniqueKey] as [string],
        unique: "while-executing" as const,
      })),
    );
    await begin("t1", 10, 100); // takes the key, parks the two others
    const [owner] = await h.redis.keys(key("flow:owner:*"));
    const [park] = await h.redis.keys(key("flow:park:*"));
    expect(await h.redis.get(owner!)).toBe("t1");
    await h.redis.del(key("tick:t1"), key("resurrector")); // t1 died; no resurrection yet
    await h.redis.rpoplpush(park!, key("queue:default")); // a parked job reaches the queue
    const fetched = jobsOf((await begin("t2", 10, 0)).fetched);
    expect(await h.redis.get(owner!)).toBe("t2");
    expect(fetched).toHaveLength(1);
  });
});
