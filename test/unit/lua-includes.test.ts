// The Lua build's include resolver (scripts/lua-includes.mjs) on made-up
// trees; the include lines of src/lua, each file naming the libraries whose
// names it uses; and the shipped scripts built from them: a library after
// every library it includes, each once.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { includeOf, librariesFor } from "../../scripts/lua-includes.mjs";
import { scripts as tickScripts, testScripts } from "../../src/lua/index.js";

// Every script, tickq/testing's too.
const scripts = { ...tickScripts, ...testScripts };
import { definedNames, usedNames } from "../helpers/lua-names.js";

/** A tree of files: each file's includes, in order; a file not listed does not exist. */
const tree = (files: Record<string, string[]>) => (file: string) => files[file];

describe("resolving Lua includes", () => {
  it("ships a library after every library it includes, through any depth", () => {
    const includesOf = tree({ a: ["b"], b: ["c"], c: [] });
    expect(librariesFor(["a"], includesOf)).toEqual(["c", "b", "a"]);
  });

  it("keeps the includer's order among libraries that need nothing of each other", () => {
    const includesOf = tree({ x: [], y: ["z"], z: [] });
    expect(librariesFor(["x", "y"], includesOf)).toEqual(["x", "z", "y"]);
    expect(librariesFor(["y", "x"], includesOf)).toEqual(["z", "y", "x"]);
  });

  it("ships a library reached along several paths once", () => {
    const includesOf = tree({ a: ["b", "c"], b: ["d"], c: ["d"], d: [] });
    expect(librariesFor(["a"], includesOf)).toEqual(["d", "b", "c", "a"]);
  });

  it("leaves out what an earlier include line of the same script already shipped", () => {
    const includesOf = tree({ a: ["common"], b: ["common", "c"], c: [], common: [] });
    const shipped = new Set<string>();
    expect(librariesFor(["a"], includesOf, shipped)).toEqual(["common", "a"]);
    expect(librariesFor(["b"], includesOf, shipped)).toEqual(["c", "b"]);
    expect(librariesFor(["a", "b"], includesOf, shipped)).toEqual([]);
  });

  it("refuses a cycle, naming every library on it in include order", () => {
    const includesOf = tree({ top: ["a"], a: ["b"], b: ["c"], c: ["a"] });
    expect(() => librariesFor(["top"], includesOf)).toThrow(/Lua include cycle: a → b → c → a\./);
    expect(() => librariesFor(["self"], tree({ self: ["self"] }))).toThrow(/cycle: self → self\./);
  });

  it("refuses an include of a missing file, naming the file and who includes it", () => {
    const includesOf = tree({ "lib/a.lua": ["lib/gone.lua"] });
    expect(() => librariesFor(["lib/a.lua"], includesOf, new Set(), "step.lua")).toThrow(
      "lib/a.lua includes lib/gone.lua, which does not exist: fix the path (relative to src/lua/) or add the file",
    );
    expect(() => librariesFor(["lib/gone.lua"], includesOf, new Set(), "step.lua")).toThrow(
      /^step\.lua includes lib\/gone\.lua, which does not exist/,
    );
  });
});

describe("the shipped scripts", () => {
  /** The files a script's text comes from, in the order their parts run. */
  const partsOf = (script: (typeof scripts)[keyof typeof scripts]) => {
    const files: string[] = [];
    script.text.split("\n").forEach((_, i) => {
      const file = script.sourceOf?.(i + 1)?.replace(/^src\/lua\/(.+):\d+$/, "$1");
      if (file !== undefined && files.at(-1) !== file) files.push(file);
    });
    return files;
  };
  const includesIn = (file: string) =>
    readFileSync(`src/lua/${file}`, "utf8")
      .split("\n")
      .map(includeOf)
      .filter((path) => path !== undefined);

  it.each(Object.keys(scripts))("%s ships each library once, after every library that library includes", (name) => {
    const parts = partsOf(scripts[name as keyof typeof scripts]);
    const libraries = parts.filter((file) => file.startsWith("lib/"));
    expect(new Set(libraries).size, `${name}: ${libraries.join(" ")}`).toBe(libraries.length);
    for (const needed of includesIn(`${name}.lua`)) expect(libraries, `${name} includes ${needed}`).toContain(needed);
    for (const library of libraries)
      for (const needed of includesIn(library)) {
        expect(libraries, `${name}: ${library} includes ${needed}`).toContain(needed);
        expect(libraries.indexOf(needed), `${name}: ${needed} before ${library}`).toBeLessThan(
          libraries.indexOf(library),
        );
      }
  });
});

describe("the include lines of src/lua", () => {
  const libraries = readdirSync("src/lua/lib").flatMap((area) =>
    readdirSync(`src/lua/lib/${area}`).map((file) => `lib/${area}/${file}`),
  );
  const files = [...libraries, ...readdirSync("src/lua").filter((file) => file.endsWith(".lua"))];
  const textOf = (file: string) => readFileSync(`src/lua/${file}`, "utf8");
  const includesIn = (lua: string) =>
    lua
      .split("\n")
      .map(includeOf)
      .filter((path) => path !== undefined)
      .sort();
  const definers = new Map<string, string[]>();
  for (const library of libraries)
    for (const name of definedNames(textOf(library))) definers.set(name, [...(definers.get(name) ?? []), library]);
  const known = new Set(definers.keys());
  /** The libraries whose names a file uses. */
  const librariesUsedBy = (file: string, lua: string) =>
    [...new Set([...usedNames(lua, known)].flatMap((name) => definers.get(name)!))].filter((l) => l !== file).sort();

  it("no two libraries define the same top-level name (a script holding both would see the later one)", () => {
    expect([...definers].filter(([, by]) => by.length > 1)).toEqual([]);
  });

  it.each(files)("%s includes exactly the libraries whose names it uses", (file) => {
    const lua = textOf(file);
    expect(includesIn(lua), `${file} uses ${librariesUsedBy(file, lua).join(", ")}`).toEqual(
      librariesUsedBy(file, lua),
    );
  });

  it("fails for a file that calls a library's function without including it, or includes one it does not call", () => {
    const slots = textOf("lib/flow/slots.lua");
    const forgot = slots.replace("-- @include lib/order/queue-job.lua\n", "");
    expect(includesIn(forgot)).not.toContain("lib/order/queue-job.lua");
    expect(librariesUsedBy("lib/flow/slots.lua", forgot)).toContain("lib/order/queue-job.lua");
    const extra = `-- @include lib/workflows/run-state.lua\n${slots}`;
    expect(librariesUsedBy("lib/flow/slots.lua", extra)).not.toContain("lib/workflows/run-state.lua");
    // a local of the file's own, or a string or comment naming a library's function, is no use of it
    const own = "local function now_ms() return 1 end\nlocal s = 'wf_claim(x)' -- order.push\nreturn now_ms()";
    expect(librariesUsedBy("x.lua", own)).toEqual([]);
  });
});
