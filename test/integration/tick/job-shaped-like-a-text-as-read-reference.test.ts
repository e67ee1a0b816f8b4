// A job read with U+FFFD is acked as "~" + the SHA-1 of its text as read (lib/tick/ack-jobs.lua). A
// job whose whole text is that reference (ASCII: "~" and 40 hex digits) is one the client names by
// "#" + its SHA-1, but Lua named it by its text when the ack held only "~" names: an ack of the first
// job could take the second out instead, leaving the first listed to run again.
import { createHash } from "node:crypto";
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
const bad = Buffer.concat([
  Buffer.from(`{"class":"x","args":["a`),
  Buffer.from("ff", "hex"),
  Buffer.from(`"],"jid":"j1"}`),
]);
const shaped = `~${createHash("sha1").update(new TextDecoder().decode(bad), "utf8").digest("hex")}`;

describe.each(adapterCases)("a job shaped like another's text-as-read reference over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "tilde-shaped");
  const { call, callTwice } = scriptCalls(h);

  it.each([
    ["first", [bad, Buffer.from(shaped)]],
    ["last", [Buffer.from(shaped), bad]],
  ] as const)("is left listed when the ack names only the other (it fetched %s)", async (_, pushed) => {
    await h.redis.lpush(`${h.prefix}queue:default`, ...pushed);
    await h.redis.sadd(`${h.prefix}queues`, "default");
    const begun = await call(
      protocol.begin,
      beginKeys({ tick: "t1", leaseMs: LEASE }),
      beginNamed({ tick: "t1", leaseMs: LEASE }),
    );
    const fetched = jobsOf(begun.fetched);
    await nameJobsByRef(fetched);
    const one = fetched.find((j) => j.ref === shaped)!;
    expect(one).toBeDefined();
    const outcomes: Outcome[] = [{ kind: "succeeded", job: one }];
    const { first } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: acksOf(outcomes), batch: 0 }),
    );
    expect(first.missed).toEqual([]);
    expect(await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)).toEqual([shaped]);
  });

  // The same over the tail fast path (take_tail, joined_tail) for a large job's "#" name.
  it("is left listed when the ack names only a large job whose '#' name is its text", async () => {
    const large = `{"class":"x","args":["${"p".repeat(2_000)}"]}`;
    const hashShaped = `#${createHash("sha1").update(large, "utf8").digest("hex")}`;
    await h.redis.lpush(`${h.prefix}queue:default`, hashShaped, large);
    await h.redis.sadd(`${h.prefix}queues`, "default");
    const begun = await call(
      protocol.begin,
      beginKeys({ tick: "t1", leaseMs: LEASE }),
      beginNamed({ tick: "t1", leaseMs: LEASE }),
    );
    const fetched = jobsOf(begun.fetched);
    await nameJobsByRef(fetched);
    const one = fetched.find((j) => j.ref === hashShaped)!;
    expect(one).toBeDefined();
    const { first } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: acksOf([{ kind: "succeeded", job: one }]), batch: 0 }),
    );
    expect(first.missed).toEqual([]);
    expect(await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)).toEqual([hashShaped]);
  });
});
