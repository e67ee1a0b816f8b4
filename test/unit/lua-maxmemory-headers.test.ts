// Every entry script says in its header what it does at maxmemory (a
// `-- maxmemory:` line), and the line agrees with its first line: a script
// that says it runs while Redis is full carries Redis' allow-oom flag, and
// one with the flag says so (docs/guarantees.md gathers them).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const LUA = join(import.meta.dirname, "../../src/lua");
const entries = readdirSync(LUA).filter((f) => f.endsWith(".lua"));

function statedOf(text: string): string | undefined {
  return /^-- maxmemory: (.*)$/m.exec(text)?.[1];
}

describe("what each entry script does at maxmemory", () => {
  it.each(entries)("%s states it, and an allow-oom script says it runs", (file) => {
    const text = readFileSync(join(LUA, file), "utf8");
    const stated = statedOf(text);
    expect(stated, `${file} has no "-- maxmemory:" header line`).toBeDefined();
    const allowOom = /^#!lua flags=.*allow-oom/.test(text);
    expect(stated!.startsWith("runs (allow-oom)"), `${file}: "${stated}"`).toBe(allowOom);
  });

  it("the workflow scripts that must make progress when Redis is full carry allow-oom", () => {
    for (const file of ["workflow_tick.lua", "workflow_event.lua", "workflow_cancel.lua", "begin.lua", "finish.lua"])
      expect(readFileSync(join(LUA, file), "utf8").split("\n")[0], file).toBe("#!lua flags=allow-oom");
  });
});
