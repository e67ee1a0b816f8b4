import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runScript } from "../../../src/redis/adapter.js";
import { scriptSha } from "../../../src/redis/script-sha.js";
import { scripts as tickScripts, testScripts } from "../../../src/lua/index.js";

// Every script, tickq/testing's too.
const scripts = { ...tickScripts, ...testScripts };
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe("Lua scripts", () => {
  it("the generated src/lua/index.ts is current", () => {
    expect(() => execFileSync(process.execPath, ["scripts/build-lua.mjs", "--check"], { stdio: "pipe" })).not.toThrow();
  });

  it("every entry .lua file carries a KEYS/ARGV/Returns/Replays header", () => {
    const entries = readdirSync("src/lua").filter((f) => f.endsWith(".lua"));
    expect(entries.sort()).toEqual(
      Object.keys(scripts)
        .map((name) => `${name}.lua`)
        .sort(),
    );
    for (const file of entries) {
      const source = readFileSync(`src/lua/${file}`, "utf8");
      for (const part of ["KEYS", "ARGV", "Returns", "Replays"])
        expect(source, file).toMatch(new RegExp(`^-- ${part}:`, "m"));
    }
  });

  // A shipped line as written: the lazy libraries' shaping (scripts/lua-lazy.mjs) undone. `closes`: the
  // line also closes a loader (its library's last code line).
  const asWritten = (line: string, closes: boolean) => {
    let text = line
      .replace(/^local libs, loaded_lib = \{\}, function\(\) end /, "")
      .replace(/^function libs\.(load_\w+)\(\) libs\.\1 = loaded_lib/, "");
    if (closes) text = text.replace(/(?: libs\.\w+(?:, libs\.\w+)* = \w+(?:, \w+)*)? end(?=(?:\s*--.*)?$)/, "");
    return text
      .replace(/if (?:not libs\.\w+|libs\.load_\w+ ~= loaded_lib) then libs\.load_\w+\(\) end /g, "")
      .replace(/\(libs\.load_\w+ == loaded_lib and libs\.(\w+) or libs\.load_\w+\(\) or libs\.\1\)/g, "$1")
      .replace(/\(libs\.(\w+) or libs\.load_\w+\(\) or libs\.\1\)/g, "$1")
      .replace(/\blibs\.(\w+)/g, "$1");
  };
  // As written, but a hoisted top-level local of a lazy library: its `local` gone, or the whole of a bare one.
  const matches = (written: string, original: string) =>
    written === original ||
    written === original.replace(/^local (function )?/, "$1") ||
    (written === "" && /^local [\w, ]+$/.test(original));

  it("the shipped text keeps every line of its .lua files in place: code as written (lazy libraries' shaping aside), comment lines blank", () => {
    const files = new Map<string, string[]>();
    const source = (path: string) =>
      files.get(path) ?? files.set(path, readFileSync(path, "utf8").split("\n")).get(path)!;
    for (const script of Object.values(scripts)) {
      const lines = script.text.split("\n");
      expect(script.text, script.name).not.toMatch(/@include/);
      expect(
        lines.slice(1).filter((line) => line.startsWith("#!")),
        script.name,
      ).toEqual([]);
      lines.forEach((line, i) => {
        const at = script.sourceOf?.(i + 1);
        expect(at, `${script.name} line ${i + 1}`).toMatch(/^src\/lua\/.+\.lua:\d+$/);
        const [path, n] = at!.split(":") as [string, string];
        const original = source(path)[Number(n) - 1]!.trim();
        const expected = original.startsWith("--") ? "" : original;
        const ok = [false, true].some((closes) => matches(asWritten(line, closes), expected));
        expect(ok ? expected : line, `${script.name} line ${i + 1} (${at})`).toBe(expected);
      });
      expect(script.sourceOf?.(lines.length + 1), script.name).toBeUndefined();
    }
  });

  it("ships each library once: the module is smaller than the scripts' texts together", () => {
    const generated = readFileSync("src/lua/index.ts", "utf8");
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

  it("names the .lua file and line of a Lua error, with the local's own name", async () => {
    // a shipped script's text, as build-lua.mjs joins it: a library's lines, then the entry's own
    const text =
      "local function bump(counter)\nreturn counter + 1\nend\n\nlocal missing_total = nil\nreturn bump(missing_total)";
    const script = {
      name: "probe",
      text: `-- ${h.prefix}\n${text}`,
      sourceOf: (line: number) => (line === 1 ? "src/lua/probe.lua:1" : `src/lua/lib/bump.lua:${line - 1}`),
    };
    await expect(runScript(h.adapter, script, [], [], { count: 0 }, 5_000)).rejects.toThrow(
      /user_script:3: attempt to perform arithmetic on local 'counter'.*\(src\/lua\/lib\/bump\.lua:2\)$/,
    );
  });
});

describe.each(adapterCases)("a flushed script cache over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "script-cache");

  it("after one NOSCRIPT, scripts not run since go straight to EVAL: a cold idle tick costs 3 round trips", async () => {
    const { createHash } = await import("node:crypto");
    const { newScriptCache } = await import("../../../src/redis/adapter.js");
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
