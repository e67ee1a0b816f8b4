// Lazy libraries (scripts/lua-lazy.mjs): a library a call does not use is never made, one it uses
// is made on first use and works as written, and an error inside it names its own file and line.
import { describe, expect, it } from "vitest";
import { shaped } from "../../../scripts/lua-lazy.mjs";
import { scripts } from "../../../src/lua/index.js";
import { runScript } from "../../../src/redis/adapter.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

/** A script as build-lua.mjs ships one: its parts shaped, joined, each line mapped to its file. */
function probeScript() {
  const lib = (file: string, lines: string[], eager = false) => ({
    lib: { file, name: file.replace(/\.lua$/, "").replace(/[^A-Za-z0-9]+/g, "_"), text: lines.join("\n"), eager },
    file,
  });
  const parts = shaped(
    [
      lib("lib/probe/prefix.lua", ["", "local P = ARGV[1]"], true),
      lib("lib/probe/sum.lua", ["", "local function sum(a, b)", "  return a + b", "end"]),
      lib("lib/probe/never.lua", ["", "local never = {}", "function never.one() return 1 end"]),
      {
        file: "probe.lua",
        own: [
          "local defined = function(name) return rawget(libs, name) ~= nil and 1 or 0 end",
          "if ARGV[2] == 'none' then return { defined('sum'), defined('never') } end",
          "if ARGV[2] == 'never' then return never.one() end",
          "if ARGV[2] == 'sum' then return { sum(1, 2), defined('sum'), defined('never') } end",
          "return sum(1, nil)",
        ],
      },
    ],
    "probe.lua",
  );
  const text = parts.map((p) => p.text).join("\n");
  return {
    name: "probe",
    text,
    sourceOf(line: number) {
      for (const part of parts) {
        const count = part.text.split("\n").length;
        if (line <= count) return `src/lua/${part.file}:${line}`;
        line -= count;
      }
      return undefined;
    },
  };
}

describe("the shipped scripts' libraries", () => {
  it("begin ships a library every tick calls as written and a workflow library as its loader", () => {
    expect(scripts.begin.text).not.toMatch(/function libs\.load_lib_common_prefix_keys\(\)/);
    expect(scripts.begin.text).not.toMatch(/function libs\.load_lib_tick_fetch_jobs\(\)/);
    expect(scripts.begin.text).toMatch(/function libs\.load_lib_workflows_claim_runs\(\)/);
    expect(scripts.finish.text).toMatch(/function libs\.load_lib_workflows_commit_runs\(\)/);
  });
});

describe.each(adapterCases)("lazy libraries over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "lazy-libraries");
  const run = (mode: string) => runScript(h.adapter, probeScript(), [], [h.prefix, mode], { count: 0 }, 5_000);

  it("a call that uses no library makes none of them", async () => {
    expect(await run("none")).toEqual([0, 0]);
  });

  it("a library is made on its first use and answers as written; one the call does not use stays unmade", async () => {
    expect(await run("sum")).toEqual([3, 1, 0]);
    expect(await run("never")).toBe(1);
  });

  it("an error inside a lazily made function names its library's file and line", async () => {
    await expect(run("error")).rejects.toThrow(
      /attempt to perform arithmetic on local 'b'.*\(src\/lua\/lib\/probe\/sum\.lua:3\)$/,
    );
  });
});
