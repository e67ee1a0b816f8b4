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

  it("every script carries a KEYS/ARGV/Returns header and no unresolved include", () => {
    for (const script of Object.values(scripts)) {
      expect(script.text, script.name).toMatch(/-- KEYS:/);
      expect(script.text, script.name).toMatch(/-- ARGV:/);
      expect(script.text, script.name).toMatch(/-- Returns:/);
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
