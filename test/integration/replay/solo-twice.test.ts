// The solo record (lib/tick/run-solo.lua) and the resurrect pass that reads it, each
// run twice with the same arguments: a step that records the job it runs
// alone, one that clears it, and a resurrection that counts the solo job and
// marks the others suspects, all leave the state of one run.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginArgs as encodeBegin } from "../../helpers/begin-args.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
const LEASE = 5_000;

describe.each(adapterCases)("the solo record run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "solo-twice");
  const { run, twice } = scriptCalls(h);

  const begin = async (tick: string, jobs: string[]) => {
    if (jobs.length > 0) await h.redis.rpush(`${h.prefix}queue:default`, ...jobs.reverse());
    await run(scripts.begin, ["ticks", `tick:${tick}`], encodeBegin({ tick, leaseMs: LEASE }));
  };

  it("step: recording the job run alone, then clearing it, each changes the state once", async () => {
    await begin("t1", [job(1), job(2)]);
    const { after } = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, `2 p${job(1)}`, 0, 0, 0, 1, "default", 0],
    );
    expect(after.solo).toEqual({ t1: `p${job(1)}` });
    const cleared = await twice(
      scripts.step,
      ["ticks", "tick:t1"],
      ["t1", LEASE, 100, 3_600, "3 -", 1, "default", 1, job(1), 0, 0, 1, "default", 0],
    );
    expect(cleared.after.solo).toBeUndefined();
    expect(cleared.after["stat:processed"]).toBe("1");
  });

  it("resurrect: only the dead tick's solo job is counted; the others become suspects, once", async () => {
    await begin("dead", [job(1), job(2), job(3)]);
    await run(
      scripts.step,
      ["ticks", "tick:dead"],
      ["dead", LEASE, 100, 3_600, `2 p${job(2)}`, 0, 0, 0, 1, "default", 0],
    );
    await begin("t1", []);
    await h.redis.del(`${h.prefix}tick:dead`, `${h.prefix}resurrector`); // its lease and its resurrector lock ran out
    const { first, after } = await twice(scripts.housekeep, ["ticks", "tick:t1"], ["t1", 2, 100, LEASE, 100, 100]);
    expect((first as number[])[1]).toBe(3);
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
    await run(scripts.step, ["ticks", "tick:dead"], ["dead", LEASE, 100, 3_600, `2 p${ref}`, 0, 0, 0, 1, "default", 0]);
    expect(await h.redis.hget(`${h.prefix}solo`, "dead")).toBe(`p${ref}`);
    await begin("t1", []);
    await h.redis.del(`${h.prefix}tick:dead`, `${h.prefix}resurrector`);
    const { after } = await twice(scripts.housekeep, ["ticks", "tick:t1"], ["t1", 2, 100, LEASE, 100, 100]);
    expect(after.resurrections).toEqual({ [large(2)]: "1" });
    expect(after.solo).toBeUndefined();
  });
});
