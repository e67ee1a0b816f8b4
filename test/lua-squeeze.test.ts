// The shipped Lua is squeezed (scripts/lua-squeeze.mjs): every script's
// behaviour is covered by the suites that run it; these are the token
// boundaries where a dropped space would change what Lua reads.
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without types
import { squeezeLua } from "../scripts/lua-squeeze.mjs";

const squeeze = squeezeLua as (line: string) => string;

describe("squeezeLua", () => {
  it("drops the spaces next to punctuation and keeps those between words", () => {
    expect(squeeze("local a, b = redis.call('GET', k) , 1")).toBe("local a,b=redis.call('GET',k),1");
    expect(squeeze("if x == nil then return { 1, 2 } end")).toBe("if x==nil then return{1,2}end");
  });

  it("copies strings untouched, escaped quotes included", () => {
    expect(squeeze("local s = 'a  =  b' .. \"c \\\" d  \"")).toBe("local s='a  =  b'..\"c \\\" d  \"");
    expect(squeeze("x = 'it\\'s  -- not a comment'")).toBe("x='it\\'s  -- not a comment'");
  });

  it("keeps the spaces that separate tokens: - -, a digit beside .., [ [", () => {
    expect(squeeze("return a - -b")).toBe("return a- -b");
    expect(squeeze("local s = 1 .. x")).toBe("local s=1 ..x");
    expect(squeeze("local s = x .. 1")).toBe("local s=x.. 1"); // kept, though `..1` would lex: a dot beside a digit keeps its space
    expect(squeeze("t[ [1] ]")).toBe("t[ [1]]");
  });

  it("drops a trailing comment but not one inside a string", () => {
    expect(squeeze("redis.call('DEL', k) -- gone: finished")).toBe("redis.call('DEL',k)");
    expect(squeeze("local c = '--'")).toBe("local c='--'");
  });
});
