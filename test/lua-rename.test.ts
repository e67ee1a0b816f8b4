// The shipped Lua's long local names are shortened (scripts/lua-rename.mjs):
// every script's behaviour is covered by the suites that run it; these are
// the places where a rename would change what Lua reads.
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without types
import { renameLua, renameMap } from "../scripts/lua-rename.mjs";

const rename = (texts: string[]) => {
  const map = (renameMap as (texts: string[]) => Map<string, string>)(texts);
  return texts.map((text) => (renameLua as (text: string, map: Map<string, string>) => string)(text, map));
};

describe("renameLua", () => {
  it("shortens a declared local, its parameters and loop variables, the same way in every text", () => {
    const [lib, entry] = rename([
      "local function parked_total(entries)\nlocal total=0\nfor _,entry in ipairs(entries)do total=total+entry end\nreturn total\nend",
      "return parked_total(redis.call('LRANGE',KEYS[1],0,-1))",
    ]);
    expect(lib).not.toMatch(/parked_total|entries|total|entry/);
    const short = /^local function (\w+)\(/.exec(lib!)![1];
    expect(entry).toBe(`return ${short}(redis.call('LRANGE',KEYS[1],0,-1))`);
  });

  it("leaves fields, strings, globals, a table constructor's keys and the #!lua line alone", () => {
    const [text] = rename([
      "#!lua flags=allow-oom\nlocal queue_name=ARGV[1]\nlocal shape={queue_name=queue_name}\nlocal t=string.sub(queue_name,1,2)\nreturn{shape.queue_name,'queue_name',t}",
    ]);
    // queue_name is a constructor's key somewhere: kept everywhere, so `shape.queue_name` still finds it; shape is renamed
    expect(text).toBe(
      "#!lua flags=allow-oom\nlocal queue_name=ARGV[1]\nlocal a={queue_name=queue_name}\nlocal t=string.sub(queue_name,1,2)\nreturn{a.queue_name,'queue_name',t}",
    );
    const [other] = rename(["local limit_of=ARGV[1]\nlocal d={}\nd.limit_of=limit_of\nreturn d.limit_of..'limit_of'"]);
    const short = /^local (\w+)=/.exec(other!)![1];
    expect(other).toBe(`local ${short}=ARGV[1]\nlocal d={}\nd.limit_of=${short}\nreturn d.limit_of..'limit_of'`);
  });

  it("never picks a name any text uses, nor a keyword", () => {
    const names = "abcdefghijklmnopqrstuvwxyz".split("").map((c) => `local ${c}=1`).join("\n");
    const [, text] = rename([names, "local a_long_name=2\nreturn a_long_name"]);
    const short = /^local (\w+)=/.exec(text!)![1]!;
    expect(short.length).toBeLessThan("a_long_name".length);
    expect("abcdefghijklmnopqrstuvwxyz".split("")).not.toContain(short);
    expect(["do", "if", "in", "or"]).not.toContain(short);
  });
});
