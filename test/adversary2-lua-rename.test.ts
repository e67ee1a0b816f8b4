// Adversary (scripts/lua-rename.mjs). The shipped scripts are renamed
// safely today: compiled with luac 5.1 (-s), every script's bytecode is the
// same before and after the rename, bar the name of one unreachable global
// (flow-admit's unroutable_entry in clear/enqueue/finish, which include no
// job-text.lua and never fetch). The one gap found is latent: the
// tokenizer knows no long bracket, so a long string's words are renamed
// ("never inside a string" is the rule), where lua-squeeze.mjs leaves any
// line holding `[[` or `[=` as written. No script uses one yet; the first
// that does (a Lua pattern or a message in [[…]]) changes meaning silently.
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without types
import { renameLua, renameMap } from "../scripts/lua-rename.mjs";

const rename = (texts: string[]) => {
  const map = (renameMap as (texts: string[]) => Map<string, string>)(texts);
  return texts.map((text) => (renameLua as (text: string, map: Map<string, string>) => string)(text, map));
};

describe("renameLua and long strings", () => {
  it("leaves a long string's text alone", () => {
    const [text] = rename(["local queue_name=ARGV[1]\nreturn [[queue_name]]..queue_name"]);
    expect(text).toMatch(/^local (\w+)=ARGV\[1\]\nreturn \[\[queue_name\]\]\.\.\1$/);
  });
});
