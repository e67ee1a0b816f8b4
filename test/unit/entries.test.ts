// The entry list (scripts/entries.mjs) is written once: the build and the API reference read it,
// and what cannot read it (package.json's `exports`, tsconfig.build.json's `files`) is held to it here.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLI, ENTRIES as entries, exportOf } from "../../scripts/entries.mjs";

const json = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), "utf8"));

describe("the package's entry points, listed once", () => {
  it("package.json exports exactly the listed entries, each with its types and its bundle", () => {
    const { exports } = json("package.json") as { exports: Record<string, unknown> };
    const expected = Object.fromEntries(entries.map((entry) => [entry.subpath, exportOf(entry)]));
    expect(exports).toEqual(expected);
  });

  it("tsconfig.build.json declares the types of exactly the listed entries", () => {
    const { files } = json("tsconfig.build.json") as { files: string[] };
    expect([...files].sort()).toEqual(entries.map((entry) => entry.source).sort());
  });

  it("the bin is the CLI the build writes", () => {
    const { bin } = json("package.json") as { bin: Record<string, string> };
    expect(bin).toEqual({ tickq: `./dist/${CLI.out}.js` });
  });

  it("every listed source exists and no two entries share a subpath or a bundle", () => {
    for (const entry of entries) expect(() => readFileSync(entry.source)).not.toThrow();
    expect(new Set(entries.map((e) => e.subpath)).size).toBe(entries.length);
    expect(new Set(entries.map((e) => e.out)).size).toBe(entries.length);
  });
});
