// Two stored jobs whose bytes differ only where they are not valid UTF-8 read as the same text, so
// acks name both by the same "~" reference (lib/tick/ack-jobs.lua): the tick holds two jobs of one
// text. In a tick's list of up to 4,000 jobs both were taken out; past that (the LREM path), only the
// one whose bytes the reference was last matched to was removed, the other left listed and missed,
// to be put back and run again.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import type { Outcome } from "../../../src/tick/passes/ack.js";
import { nameJobsByRef } from "../../../src/tick/passes/ack-refs.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { acksOf, jobsOf, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const stored = (bad: string) =>
  Buffer.concat([Buffer.from(`{"class":"x","args":["a`), Buffer.from(bad, "hex"), Buffer.from(`"],"jid":"j1"}`)]);

describe.each(adapterCases)("an inproc list over 4,000 jobs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "bad-utf8-long");
  const { call, callTwice } = scriptCalls(h);

  it("two stored jobs read as the same text, both acked, are both taken out, once", async () => {
    await h.redis.lpush(`${h.prefix}queue:default`, stored("c0"), stored("fe"));
    await h.redis.sadd(`${h.prefix}queues`, "default");
    const begun = await call(
      protocol.begin,
      beginKeys({ tick: "t1", leaseMs: LEASE }),
      beginNamed({ tick: "t1", leaseMs: LEASE }),
    );
    const fetched = jobsOf(begun.fetched);
    expect(fetched.map((j) => j.raw)).toEqual([stored("fe").toString(), stored("c0").toString()]);
    await nameJobsByRef(fetched);
    expect(fetched[0]!.ref).toBe(fetched[1]!.ref);
    // Other jobs this tick holds: its list is past the 4,000 the ack rewrites.
    const others = Array.from({ length: 4_001 }, (_, k) => `{"class":"x","args":[${k}]}`);
    for (let k = 0; k < others.length; k += 1_000)
      await h.redis.rpush(`${h.prefix}inproc:t1:default`, ...others.slice(k, k + 1_000));
    const outcomes: Outcome[] = fetched.map((job) => ({ kind: "succeeded", job }));
    // Run twice with the same arguments: the second finds both gone and changes nothing.
    const { first } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: acksOf(outcomes), batch: 0 }),
    );
    expect(first.missed).toEqual([]);
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBe("2");
    expect(await h.redis.llen(`${h.prefix}inproc:t1:default`)).toBe(others.length);
  });
});
