// Every entry script's .lua header against its declaration in src/protocol:
// the KEYS, ARGV and Returns signature lines must be the ones the
// declaration renders; its ARGV is read into locals named as the
// declaration names the parts (at the ARGV index the declaration puts
// them, where that index is fixed), and nowhere else by a literal index;
// no TypeScript outside src/protocol reads a script's reply by position.
// Mutated copies show the checks fail when either side changes alone.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { counted, defineCall, group, key, number, text, tuple, type Call } from "../../src/protocol/define.js";
import * as protocol from "../../src/protocol/index.js";
import { signatureOf, type Signature } from "../../src/protocol/signature.js";
import { test_clock } from "../../src/protocol/test-clock.js";
import { argvLocalsOf, localsMismatches } from "../helpers/lua-locals.js";

const LUA = join(import.meta.dirname, "../../src/lua");
const SRC = join(import.meta.dirname, "../../src");
// tickq/testing's call lives apart from the index (out of the Worker's bundle): declared all the same.
const declared: Record<string, Call> = { ...protocol, test_clock };

/** The signature lines of a header: `-- KEYS: …`, `-- ARGV: …`, `-- Returns: …`, each with its `--   ` continuation lines. */
function headerOf(lua: string): Partial<Signature> {
  const out: Partial<Signature> = {};
  const lines = lua.split("\n");
  const labels = { KEYS: "keys", ARGV: "argv", Returns: "returns" } as const;
  lines.forEach((line, i) => {
    const m = /^-- (KEYS|ARGV|Returns): (.*)$/.exec(line);
    if (!m) return;
    const parts = [m[2]!];
    for (let j = i + 1; j < lines.length && /^-- {2,}\S/.test(lines[j]!); j++) parts.push(lines[j]!.slice(2));
    out[labels[m[1] as keyof typeof labels]] = parts.join(" ").replace(/\s+/g, " ").trim();
  });
  return out;
}

/** What differs between a header and a declaration; empty when they agree. */
function mismatches(lua: string, call: Call): string[] {
  const header = headerOf(lua);
  const wanted = signatureOf(call);
  return (["keys", "argv", "returns"] as const)
    .filter((part) => header[part] !== wanted[part])
    .map(
      (part) => `${part}: header says ${JSON.stringify(header[part])}, the declaration ${JSON.stringify(wanted[part])}`,
    );
}

const entryScripts = readdirSync(LUA)
  .filter((f) => f.endsWith(".lua"))
  .map((f) => f.replace(/\.lua$/, ""))
  .sort();

describe("the Lua protocol", () => {
  it("declares every entry script once, and nothing else", () => {
    expect(Object.keys(declared).sort()).toEqual(entryScripts);
    for (const [name, call] of Object.entries(declared)) expect(call.script.name).toBe(name);
  });

  it.each(entryScripts)("%s.lua's header names the KEYS, ARGV and reply its declaration does", (name) => {
    const lua = readFileSync(join(LUA, `${name}.lua`), "utf8");
    expect(mismatches(lua, declared[name]!)).toEqual([]);
  });

  it.each(entryScripts)("%s.lua reads its ARGV into locals named and placed as its declaration says", (name) => {
    const lua = readFileSync(join(LUA, `${name}.lua`), "utf8");
    expect(localsMismatches(lua, argvLocalsOf(declared[name]!))).toEqual([]);
  });

  it("fails for locals that drift from the declaration: renamed, moved, or an ARGV read by number elsewhere", () => {
    const lua = readFileSync(join(LUA, "step.lua"), "utf8");
    const wanted = argvLocalsOf(protocol.step);
    expect(localsMismatches(lua, wanted)).toEqual([]);
    const renamed = lua.replace("local deadMaxSize = ", "local deadMax = ");
    expect(localsMismatches(renamed, wanted)).toEqual([expect.stringContaining("deadMaxSize")]);
    const moved = lua.replace("local leaseMs = ARGV[3]", "local leaseMs = ARGV[4]");
    expect(localsMismatches(moved, wanted)).toEqual([expect.stringContaining("ARGV[3]")]);
    const byNumber = lua.replace("redis.call('PEXPIRE', lease, leaseMs)", "redis.call('PEXPIRE', lease, ARGV[3])");
    expect(byNumber).not.toBe(lua);
    expect(localsMismatches(byNumber, wanted)).toEqual([expect.stringContaining("ARGV[3]")]);
    const added: Call = { ...protocol.housekeep, args: { ...protocol.housekeep.args, extra: text } };
    const housekeep = readFileSync(join(LUA, "housekeep.lua"), "utf8");
    expect(localsMismatches(housekeep, argvLocalsOf(added))).toEqual([expect.stringContaining("extra")]);
  });

  it("fails for a header changed alone: two ARGV names swapped", () => {
    const lua = readFileSync(join(LUA, "enqueue.lua"), "utf8");
    const swapped = lua.replace("token tokenMs", "tokenMs token");
    expect(swapped).not.toBe(lua);
    expect(mismatches(swapped, protocol.enqueue)).toEqual([expect.stringContaining("argv:")]);
  });

  it("fails for a declaration changed alone: a part added, a section turned into one value", () => {
    const lua = readFileSync(join(LUA, "parallel.lua"), "utf8");
    const { script } = protocol.parallel;
    const keys = { ticks: key, reserved: key };
    const reply = tuple({ granted: number, others: number });
    const added = defineCall(script, keys, { maxLive: text, reserveMs: text, ids: counted(text), extra: text }, reply);
    expect(mismatches(lua, added)).toEqual([expect.stringContaining("argv:")]);
    const flattened = defineCall(script, keys, { maxLive: text, reserveMs: text, ids: text }, reply);
    expect(mismatches(lua, flattened)).toEqual([expect.stringContaining("ids")]);
    const grouped = defineCall(
      script,
      keys,
      { maxLive: text, reserveMs: text, ids: counted(group({ id: text })) },
      reply,
    );
    expect(mismatches(lua, grouped)).toEqual([expect.stringContaining("ids[](id)")]);
  });

  it("fails for a reply field renamed in the header alone", () => {
    const lua = readFileSync(join(LUA, "step.lua"), "utf8");
    const renamed = lua.replace("leaseHeld deadEvicted", "held deadEvicted");
    expect(mismatches(renamed, protocol.step)).toEqual([expect.stringContaining("returns:")]);
  });
});

/** TypeScript files under src/, except the protocol itself and the generated Lua index. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return path.endsWith("/protocol") ? [] : sources(path);
    return e.name.endsWith(".ts") && path !== join(SRC, "lua/index.ts") ? [path] : [];
  });
}

describe("reading replies", () => {
  // A reply read by position: the raw runner, the reply helpers, or a script object sent by hand.
  const positional = /\basArray\(|\basNumber\(|runtime\.run\(|\brunScript\(|\bscripts\.\w+/;

  it("happens only in src/protocol: no file elsewhere runs a script or picks a reply apart by hand", () => {
    const offenders = sources(SRC)
      .filter((path) => !path.endsWith("redis/adapter.ts") && path !== `${SRC}/runtime.ts`)
      .flatMap((path) =>
        readFileSync(path, "utf8")
          .split("\n")
          .map((line, i) => ({ path, line, i }))
          .filter(
            ({ line }) =>
              !line.trimStart().startsWith("//") && !line.trimStart().startsWith("*") && positional.test(line),
          )
          .map(({ path, line, i }) => `${path.slice(SRC.length + 1)}:${i + 1}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
  });

  it("the check finds a positional read where one is written", () => {
    expect(positional.test("const held = asNumber(reply[6]) === 1;")).toBe(true);
    expect(positional.test("await runtime.run(scripts.pause, keys, args, trips)")).toBe(true);
    expect(positional.test("const reply = await runCall(runtime, protocol.pause, keys, args);")).toBe(false);
  });
});
