// A busy unique key's parked jobs keep their enqueue order when jobs of
// another shape on the same key (coalesce `u w`, a concurrency limit `u l N`)
// sit between its while-executing duplicates: the one in between must not be
// pushed behind the whole run of duplicates (lib/flow/admit.lua fast parking).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { enqueueQueued } from "../../helpers/flow-queued.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { jobsOf, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const beginArgs = (tick: string, fetch: number) => beginNamed({ tick, leaseMs: LEASE, batch: fetch });

describe.each(adapterCases)("park order of a busy unique key's jobs of two shapes over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "adv2-park-order");
  const { callTwice } = scriptCalls(h);
  const key = (name: string) => `${h.prefix}${name}`;

  it("a coalesce job between the key's first and second while-executing jobs keeps its place (oldest at the right)", async () => {
    const tq = h.make({ sync: { perform: () => {}, uniqueKey: ([k]: [string]) => k } });
    // Queued while the key is free: all three sit in the queue, oldest first w1, c, w2.
    await enqueueQueued(h, tq, [
      { name: "sync", args: ["busy"], unique: "while-executing", jid: "w1" },
      { name: "sync", args: ["busy"], unique: "coalesce", jid: "c" },
      { name: "sync", args: ["busy"], unique: "while-executing", jid: "w2" },
    ]);
    // Then a live tick takes the key.
    await h.redis.set(key("tick:other"), "1", "PX", 60_000);
    await h.redis.set(key("flow:owner:u:busy"), "other");
    const { first, after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1", 10));
    expect(jobsOf(first.fetched)).toEqual([]);
    expect(after["flow:waiting"]).toEqual({ sync: "3" });
    // RPOP order must be w1, c, w2: the list, left to right, w2, c, w1.
    expect((after["flow:park:u:busy"] as string[]).map((j) => JSON.parse(j).jid)).toEqual(["w2", "c", "w1"]);
  });

  it("a while-executing job with a concurrency limit between two plain while-executing jobs of its key keeps its place", async () => {
    const by = ([k]: [string]) => k;
    const tq = h.make({
      sync: { perform: () => {}, uniqueKey: by },
      capped: { perform: () => {}, uniqueKey: by, concurrency: { key: () => "all", limit: 5 } },
    });
    await enqueueQueued(h, tq, [
      { name: "sync", args: ["busy"], unique: "while-executing", jid: "w1" },
      { name: "capped", args: ["busy"], unique: "while-executing", jid: "x" },
      { name: "sync", args: ["busy"], unique: "while-executing", jid: "w2" },
      { name: "sync", args: ["busy"], unique: "while-executing", jid: "w3" },
    ]);
    await h.redis.set(key("tick:other"), "1", "PX", 60_000);
    await h.redis.set(key("flow:owner:u:busy"), "other");
    const { after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1", 10));
    expect(after["flow:waiting"]).toEqual({ sync: "3", capped: "1" });
    expect((after["flow:park:u:busy"] as string[]).map((j) => JSON.parse(j).jid)).toEqual(["w3", "w2", "x", "w1"]);
  });
});
