// Jobs whose bytes are not valid UTF-8 are named in acks and solo records by "~" + the SHA-1 of
// their text as read (lib/tick/ack-jobs.lua, lib/common/utf8-as-read.lua). Run twice with the same
// arguments, a step naming them settles each once (a failure patched into the stored bytes), and a
// resurrection counts the solo one once.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import type { Outcome } from "../../../src/tick/passes/ack.js";
import { nameJobsByRef } from "../../../src/tick/passes/ack-refs.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { acksOf, housekeepArgs, jobsOf, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
/** A job holding `bad` (hex) in its argument, as a foreign client would push it. */
const stored = (n: number, bad = "ff") =>
  Buffer.concat([
    Buffer.from(`{"class":"x","args":["a`),
    Buffer.from(bad, "hex"),
    Buffer.from(`"],"jid":"j${n}","queue":"default","retry":1}`),
  ]);
const sha1 = (text: string) => createHash("sha1").update(text, "utf8").digest("hex");

describe.each(adapterCases)("jobs with invalid UTF-8 run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "bad-utf8-twice");
  const { call, callTwice } = scriptCalls(h);

  const begin = async (tick: string, jobs: Buffer[]) => {
    if (jobs.length > 0) await h.redis.lpush(`${h.prefix}queue:default`, ...jobs);
    await h.redis.sadd(`${h.prefix}queues`, "default");
    return call(protocol.begin, beginKeys({ tick, leaseMs: LEASE }), beginNamed({ tick, leaseMs: LEASE }));
  };

  it("step: acks naming them by their text as read settle each once, a failure spliced into the stored bytes", async () => {
    // Five stored jobs, two of them read as the same text, and one shaped like a reference.
    const refShaped = `~${"ab".repeat(20)}`;
    await h.redis.lpush(`${h.prefix}queue:default`, refShaped);
    const begun = await begin("t1", [stored(1), stored(2), stored(3, "c0"), stored(3, "fe"), stored(4, "eda080")]);
    const fetched = jobsOf(begun.fetched);
    expect(fetched).toHaveLength(6);
    await nameJobsByRef(fetched);
    expect(fetched.map((j) => j.ref?.[0])).toEqual(["#", "~", "~", "~", "~", "~"]);
    const [shaped, one, two, three, threeAgain, four] = fetched as [never, never, never, never, never, never];
    const fields = { error_message: "E!", error_class: "Error", retry_count: 0 };
    const outcomes: Outcome[] = [
      { kind: "succeeded", job: shaped },
      { kind: "succeeded", job: one },
      { kind: "succeeded", job: three },
      { kind: "succeeded", job: threeAgain },
      { kind: "retry", job: two, updated: "", fields, delaySec: 60 },
      { kind: "dead", job: four, updated: "", fields, handlerFailed: true },
    ];
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: acksOf(outcomes), batch: 0 }),
    );
    expect(first.missed).toEqual([]);
    expect(after["stat:processed"]).toBe("6");
    expect(after["stat:failed"]).toBe("2");
    expect(after["inproc:t1:default"]).toBeUndefined();
    const spliced = (job: Buffer) =>
      Buffer.concat([job.subarray(0, -1), Buffer.from(',"error_message":"E!","error_class":"Error","retry_count":0}')]);
    expect(await h.redis.zrangeBuffer(`${h.prefix}retry`, "0", "-1")).toEqual([spliced(stored(2))]);
    expect(await h.redis.zrangeBuffer(`${h.prefix}dead`, "0", "-1")).toEqual([spliced(stored(4, "eda080"))]);
  });

  it("step: an ack naming one by the text it read, as before, finds nothing and leaves it listed", async () => {
    const begun = await begin("t1", [stored(1)]);
    const [job] = jobsOf(begun.fetched);
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: rawAcks({ default: [job!.raw] }), batch: 0 }),
    );
    expect(first.missed).toEqual([1]);
    expect(after["stat:processed"]).toBeUndefined();
    expect(await h.redis.lrangeBuffer(`${h.prefix}inproc:t1:default`, 0, -1)).toEqual([stored(1)]);
  });

  it("resurrect: the solo job recorded by its text as read is the one counted, once", async () => {
    await begin("dead", [stored(1), stored(2), stored(3, "f4908080")]);
    const ref = `~${sha1(new TextDecoder().decode(stored(2)))}`;
    await call(
      protocol.step,
      tickKeys("dead"),
      stepArgs({ tick: "dead", leaseMs: LEASE, call: `2 p${ref}`, batch: 0 }),
    );
    expect(await h.redis.hget(`${h.prefix}solo`, "dead")).toBe(`p${ref}`);
    await begin("t1", []);
    await h.redis.del(`${h.prefix}tick:dead`, `${h.prefix}resurrector`); // its lease and its resurrector lock ran out
    const { first, after } = await callTwice(
      protocol.housekeep,
      tickKeys("t1"),
      housekeepArgs({ tick: "t1", call: 2 }),
    );
    expect(first.resurrected).toBe(3);
    expect(await h.redis.hkeysBuffer(`${h.prefix}resurrections`)).toEqual([stored(2)]);
    expect(after.solo).toBeUndefined();
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(3);
  });
});
