// A fetch that frees the slot of a holder whose lease is gone starts the job
// in hand, and the key's oldest parked job, which the release sent to the
// head of its queue, comes next: the next fetch parks it first in line. The
// known limit O3 (docs/internals/known-issues.md): the parked job may be the
// older one, and runs one place late; nothing overlaps and nothing is lost.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { enqueueQueued } from "../../helpers/flow-queued.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { jobsOf, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");
const beginArgs = (tick: string) => beginNamed({ tick, leaseMs: LEASE });

describe.each(adapterCases)("a dead holder's slot freed by a fetch over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-sweep-order");
  const { callTwice } = scriptCalls(h);
  const key = (name: string) => `${h.prefix}${name}`;
  const jidsOf = (jobs: string[]) => jobs.map((job) => JSON.parse(job).jid as string);

  it("starts the job in hand, and the parked job its release sent on is the next in line", async () => {
    const tq = h.make({ sync: { perform: () => {}, uniqueKey: ([k]: [string]) => k } });
    const job = (jid: string) => ({
      name: "sync" as const,
      args: ["k"] as [string],
      unique: "while-executing" as const,
      jid,
    });
    // p waits parked behind a live holder; then j is queued and the holder's lease ends.
    await h.redis.set(key("tick:other"), "1", "PX", 60_000);
    await h.redis.set(key("flow:owner:u:k"), "other");
    await tq.enqueue("sync", ["k"], { unique: "while-executing", jid: "p" });
    expect(jidsOf(await h.redis.lrange(key("flow:park:u:k"), 0, -1))).toEqual(["p"]);
    await enqueueQueued(h, tq, [job("j")]);
    await h.redis.del(key("tick:other"));

    const swept = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1"));
    expect(jobsOf(swept.first.fetched).map((f) => JSON.parse(f.raw).jid)).toEqual(["j"]);
    expect(swept.after["flow:owner:u:k"]).toBe("t1");
    const queued = swept.after["queue:default"] as string[];
    expect(jidsOf(queued)).toEqual(["p"]);
    expect((swept.after["flow:sent"] as Record<string, string>)["u:k"]?.split(" ")[0]).toBe(sha1(queued[0]!));

    // The next fetch, the key held by t1, parks p at the oldest end: it is the next to take the slot.
    const next = await callTwice(protocol.begin, tickKeys("t2"), beginArgs("t2"));
    expect(jobsOf(next.first.fetched)).toEqual([]);
    expect(jidsOf(next.after["flow:park:u:k"] as string[])).toEqual(["p"]);
    expect(next.after["flow:sent"]).toBeUndefined();
    expect(next.after["flow:waiting"]).toEqual({ sync: "1" });
  });
});
