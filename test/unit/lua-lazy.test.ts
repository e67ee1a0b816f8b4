// The lazy libraries' rewriting (scripts/lua-lazy.mjs) on made-up Lua: a use of a library's name
// loads it first, a field or a local of the same name is left alone, and lines stay one for one.
import { describe, expect, it } from "vitest";
import { loadingUses, shaped } from "../../scripts/lua-lazy.mjs";

const lazy = new Map([["sum", { loader: "load_sum" }]]);
const shape = (text: string) => loadingUses(text, lazy, "probe.lua");

describe("a use of a lazy library's name", () => {
  it("loads it inside an expression, and before a statement it starts", () => {
    expect(shape("local x = sum(1, 2)")).toBe("local x = (libs.sum or libs.load_sum() or libs.sum)(1, 2)");
    expect(shape("sum(1, 2)")).toBe("if not libs.sum then libs.load_sum() end libs.sum(1, 2)");
    expect(shape("if a then sum.x = 1 end")).toBe(
      "if a then if not libs.sum then libs.load_sum() end libs.sum.x = 1 end",
    );
  });

  it("leaves fields, methods, table keys, strings and comments alone", () => {
    const text = "local t = { sum = a.sum, b:sum() } -- sum\nreturn 'sum'";
    expect(shape(text)).toBe(text);
  });

  it("leaves a local of the same name alone in its scope, and only there", () => {
    expect(shape("if a then\nlocal sum = 1\nreturn sum\nelse\nreturn sum\nend")).toBe(
      "if a then\nlocal sum = 1\nreturn sum\nelse\nreturn (libs.sum or libs.load_sum() or libs.sum)\nend",
    );
    expect(shape("local function f(sum)\nreturn sum\nend\nreturn sum")).toBe(
      "local function f(sum)\nreturn sum\nend\nreturn (libs.sum or libs.load_sum() or libs.sum)",
    );
    expect(shape("for _, sum in ipairs(t) do\nx = sum\nend\nreturn sum")).toBe(
      "for _, sum in ipairs(t) do\nx = sum\nend\nreturn (libs.sum or libs.load_sum() or libs.sum)",
    );
  });

  it("refuses a local of the same name on a line that reads it (`local sum = sum`: which one is meant)", () => {
    expect(() => shape("local sum = sum")).toThrow(/the local sum hides a lazy library's name/);
  });

  it("keeps every line where it was", () => {
    const text = "local a = sum(1)\n\nsum(2)\nreturn sum";
    expect(shape(text).split("\n")).toHaveLength(4);
  });

  it("refuses an assignment to it from another file", () => {
    expect(() => shape("sum = nil")).toThrow(/assigns sum, a lazy library's name/);
    expect(() => shape("function sum() end")).toThrow(/function sum assigns a lazy library's name/);
  });
});

describe("a library that adds to another's table", () => {
  const lib = (file: string, lines: string[], eager = false) => ({
    lib: { file, name: file.replace(/\W+/g, "_"), text: lines.join("\n"), eager },
  });

  it("is loaded by every later use of that table, and loads the table's library first", () => {
    const parts = shaped(
      [
        lib("lib/t.lua", ["", "local t = {}"]),
        lib("lib/extra.lua", ["", "function t.extra() return 2 end"]),
        { own: ["return t.extra()"] },
      ],
      "probe.lua",
    );
    expect(parts[1]!.text).toContain("if not libs.t then libs.load_lib_t_lua() end function libs.t.extra()");
    expect(parts[2]!.text).toBe(
      "return (libs.load_lib_extra_lua == loaded_lib and libs.t or libs.load_lib_extra_lua() or libs.t).extra()",
    );
  });

  it("must be @eager when that table's library is: nothing else would load it", () => {
    const parts = [lib("lib/t.lua", ["", "local t = {}"], true), lib("lib/extra.lua", ["", "function t.extra() end"])];
    expect(() => shaped(parts, "probe.lua")).toThrow(/adds to t of lib\/t\.lua, an @eager library: mark it @eager too/);
  });
});
