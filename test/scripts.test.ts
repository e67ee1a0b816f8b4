import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { runScript } from "../src/redis.js";
import { scripts } from "../src/index.js";
import { adapterCases } from "./helpers/adapters.js";
import { useHarness } from "./helpers/harness.js";

describe("Lua scripts", () => {
  it("the generated src/scripts/index.ts is current", () => {
    expect(() => execFileSync(process.execPath, ["scripts/build-lua.mjs", "--check"], { stdio: "pipe" })).not.toThrow();
  });

  it("every script carries a KEYS/ARGV/Returns/Replays header and no unresolved include", () => {
    for (const script of Object.values(scripts)) {
      expect(script.text, script.name).toMatch(/-- KEYS:/);
      expect(script.text, script.name).toMatch(/-- ARGV:/);
      expect(script.text, script.name).toMatch(/-- Returns:/);
      expect(script.text, script.name).toMatch(/-- Replays:/);
      expect(script.text, script.name).not.toMatch(/@include/);
    }
  });
});

describe.each(adapterCases)("running scripts over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "scripts");

  it("SCRIPT LOAD returns the SHA-1 computed at build time", async () => {
    for (const script of Object.values(scripts)) {
      expect(await h.redis.script("LOAD", script.text), script.name).toBe(script.sha);
    }
  });

  it("falls back to EVAL once on NOSCRIPT, then EVALSHA finds it", async () => {
    const text = `-- ${h.prefix}\nreturn {ARGV[1], 42, false, {'nested'}}`;
    const { createHash } = await import("node:crypto");
    const script = { name: "probe", text, sha: createHash("sha1").update(text).digest("hex") };
    const trips = { count: 0 };
    expect(await runScript(h.adapter, script, [], ["007"], trips, 5_000)).toEqual(["007", 42, null, ["nested"]]);
    expect(trips.count).toBe(2);
    expect(await runScript(h.adapter, script, [], ["007"], trips, 5_000)).toEqual(["007", 42, null, ["nested"]]);
    expect(trips.count).toBe(3);
  });

  it("reports a Lua error as a TickqError naming the script", async () => {
    const text = "return redis.call('NOPE')";
    const { createHash } = await import("node:crypto");
    const script = { name: "broken", text, sha: createHash("sha1").update(text).digest("hex") };
    await expect(runScript(h.adapter, script, [], [], { count: 0 }, 5_000)).rejects.toThrow(/script broken/);
  });
});

describe.each(adapterCases)("a flushed script cache over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "script-cache");

  it("after one NOSCRIPT, scripts not run since go straight to EVAL: a cold idle tick costs 3 round trips", async () => {
    const { createHash } = await import("node:crypto");
    const { newScriptCache } = await import("../src/redis.js");
    // two scripts no Redis has seen: as after SCRIPT FLUSH, without flushing the shared test Redis
    const fresh = (name: string) => {
      const text = `-- ${h.prefix}${name}\nreturn '${name}'`;
      return { name, text, sha: createHash("sha1").update(text).digest("hex") };
    };
    const [a, b] = [fresh("a"), fresh("b")];
    const cache = newScriptCache();
    const trips = { count: 0 };
    expect(await runScript(h.adapter, a, [], [], trips, 5_000, cache)).toBe("a");
    expect(trips.count).toBe(2); // EVALSHA → NOSCRIPT, EVAL
    expect(await runScript(h.adapter, b, [], [], trips, 5_000, cache)).toBe("b");
    expect(trips.count).toBe(3); // EVAL at once
    expect(await runScript(h.adapter, a, [], [], trips, 5_000, cache)).toBe("a");
    expect(await runScript(h.adapter, b, [], [], trips, 5_000, cache)).toBe("b");
    expect(trips.count).toBe(5); // both cached now: EVALSHA each
  });
});
