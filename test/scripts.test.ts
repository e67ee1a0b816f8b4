import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runScript } from "../src/redis.js";
import { scriptSha } from "../src/script-sha.js";
import { scripts } from "../src/index.js";
import { adapterCases } from "./helpers/adapters.js";
import { useHarness } from "./helpers/harness.js";

describe("Lua scripts", () => {
  it("the generated src/scripts/index.ts is current", () => {
    expect(() => execFileSync(process.execPath, ["scripts/build-lua.mjs", "--check"], { stdio: "pipe" })).not.toThrow();
  });

  it("every entry .lua file carries a KEYS/ARGV/Returns/Replays header", () => {
    const entries = readdirSync("src/scripts").filter((f) => f.endsWith(".lua"));
    expect(entries.sort()).toEqual(Object.keys(scripts).map((name) => `${name}.lua`).sort());
    for (const file of entries) {
      const source = readFileSync(`src/scripts/${file}`, "utf8");
      for (const part of ["KEYS", "ARGV", "Returns", "Replays"]) expect(source, file).toMatch(new RegExp(`^-- ${part}:`, "m"));
    }
  });

  it("the shipped text keeps no include, comment line, indentation or blank line; only a leading #! line", () => {
    for (const script of Object.values(scripts)) {
      const lines = script.text.split("\n");
      expect(script.text, script.name).not.toMatch(/@include/);
      expect(lines.filter((line) => /^\s*--/.test(line) || line.trim() !== line || line === ""), script.name).toEqual([]);
      expect(lines.slice(1).filter((line) => line.startsWith("#!")), script.name).toEqual([]);
    }
  });

  it("ships each library once: the module is smaller than the scripts' texts together", () => {
    const generated = readFileSync("src/scripts/index.ts", "utf8");
    const texts = Object.values(scripts).reduce((n, script) => n + JSON.stringify(script.text).length, 0);
    expect(generated.length).toBeLessThan(texts / 2);
  });
});

describe.each(adapterCases)("running scripts over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "scripts");

  it("SCRIPT LOAD returns the SHA-1 the client computes and sends with EVALSHA", async () => {
    for (const script of Object.values(scripts)) {
      expect(await h.redis.script("LOAD", script.text), script.name).toBe(await scriptSha(script));
      expect(scriptSha(script), "kept once computed").toBe(await scriptSha(script));
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
