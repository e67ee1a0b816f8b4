// The solo record (lib/tick/run-solo.lua) and the resurrect pass that reads it, each
// run twice with the same arguments: a step that records the job it runs
// alone, one that clears it, and a resurrection that counts the solo job and
// marks the others suspects, all leave the state of one run.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { housekeepArgs, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
const LEASE = 5_000;

describe.each(adapterCases)("the solo record run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "solo-twice");
  const { call, callTwice } = scriptCalls(h);

  const begin = async (tick: string, jobs: string[]) => {
    if (jobs.length > 0) await h.redis.rpush(`${h.prefix}queue:default`, ...jobs.reverse());
    await call(protocol.begin, beginKeys({ tick, leaseMs: LEASE }), beginNamed({ tick, leaseMs: LEASE }));
  };
  /** A step that fetches nothing; `call` carries the solo marker after the call number. */
  const step = (tick: string, call: string, acks = rawAcks()) =>
    stepArgs({ tick, leaseMs: LEASE, call, acks, batch: 0 });
  const housekeep = housekeepArgs({ tick: "t1", call: 2 });

  it("step: recording the job run alone, then clearing it, each changes the state once", async () => {
    await begin("t1", [job(1), job(2)]);
    const { after } = await callTwice(protocol.step, tickKeys("t1"), step("t1", `2 p${job(1)}`));
    expect(after.solo).toEqual({ t1: `p${job(1)}` });
    const cleared = await callTwice(protocol.step, tickKeys("t1"), step("t1", "3 -", rawAcks({ default: [job(1)] })));
    expect(cleared.after.solo).toBeUndefined();
    expect(cleared.after["stat:processed"]).toBe("1");
  });

  it("resurrect: only the dead tick's solo job is counted; the others become suspects, once", async () => {
    await begin("dead", [job(1), job(2), job(3)]);
    await call(protocol.step, tickKeys("dead"), step("dead", `2 p${job(2)}`));
    await begin("t1", []);
    await h.redis.del(`${h.prefix}tick:dead`, `${h.prefix}resurrector`); // its lease and its resurrector lock ran out
    const { first, after } = await callTwice(protocol.housekeep, tickKeys("t1"), housekeep);
    expect(first.resurrected).toBe(3);
    expect(after.resurrections).toEqual({ [job(2)]: "1" });
    expect(Object.keys(after.suspects as object).sort()).toEqual([job(1), job(2), job(3)].sort());
    expect(after.solo).toBeUndefined();
    expect(Object.keys(after.ticks as object)).toEqual(["t1"]);
  });

  it("resurrect: a large solo job recorded by its reference is the one counted, once", async () => {
    const large = (n: number) =>
      JSON.stringify({ class: "x", args: [n, "x".repeat(2_000)], jid: `j${n}`, queue: "default", retry: true });
    await begin("dead", [large(1), large(2), job(3)]);
    const ref = `#${createHash("sha1").update(large(2)).digest("hex")}`;
    await call(protocol.step, tickKeys("dead"), step("dead", `2 p${ref}`));
    expect(await h.redis.hget(`${h.prefix}solo`, "dead")).toBe(`p${ref}`);
    await begin("t1", []);
    await h.redis.del(`${h.prefix}tick:dead`, `${h.prefix}resurrector`);
    const { after } = await callTwice(protocol.housekeep, tickKeys("t1"), housekeep);
    expect(after.resurrections).toEqual({ [large(2)]: "1" });
    expect(after.solo).toBeUndefined();
  });
});
