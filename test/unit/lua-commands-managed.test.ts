// A managed Redis (Upstash) or an ACL serves fewer commands than a plain redis-server, and a script that
// calls a refused command through redis.call fails whole: a tick that cannot begin or ack. So every command
// a script names in redis.call is one the local REST server serves (tools/upstash-local/allowed.ts, the
// commands Upstash lists), and any other goes through redis.pcall or pcall with a fallback
// (INFO, OBJECT, LASTSAVE). The local REST server checks only the commands it is sent, not those inside
// scripts, so without this a refused command in a script passes every REST test.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isAllowed } from "../../tools/upstash-local/allowed.js";

const LUA = join(import.meta.dirname, "../../src/lua");

function luaFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? luaFiles(path) : name.endsWith(".lua") ? [path] : [];
  });
}

/** Commands named in `redis.call('NAME'` (not pcall'd), with where. */
function calledCommands(): { command: string; where: string }[] {
  const found: { command: string; where: string }[] = [];
  for (const file of luaFiles(LUA)) {
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((line, i) => {
      if (line.trimStart().startsWith("--")) return;
      for (const m of line.matchAll(/redis\.call\(\s*['"]([A-Za-z]+)['"]/g))
        found.push({ command: m[1]!.toUpperCase(), where: `${file.slice(LUA.length + 1)}:${i + 1}` });
    });
  }
  return found;
}

describe("the commands scripts call", () => {
  it("finds the scripts' calls (the scan reads them)", () => {
    const commands = new Set(calledCommands().map((c) => c.command));
    for (const c of ["HSET", "ZADD", "LRANGE", "EXISTS"]) expect(commands).toContain(c);
  });

  it("every command a script calls through redis.call is one Upstash serves; others go through pcall", () => {
    const refused = calledCommands().filter((c) => !isAllowed([c.command]));
    expect(refused.map((c) => `${c.command} at ${c.where}`)).toEqual([]);
  });
});
