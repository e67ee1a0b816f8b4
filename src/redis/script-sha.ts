// A script's SHA-1, for EVALSHA, computed at run time with WebCrypto (Node,
// Workers and Vercel's edge all have it) and kept: shipping 21 hex digests
// in every bundle cost more than the digest does once per script.
import { sha1Hex } from "../sha1.js";
import type { LuaScript } from "./types.js";

const known = new WeakMap<LuaScript, string>();
const pending = new WeakMap<LuaScript, Promise<string>>();

async function digest(script: LuaScript): Promise<string> {
  const sha = await sha1Hex(script.text);
  known.set(script, sha);
  return sha;
}

/** The script's SHA-1 (hex), at once when known, else once computed. */
export function scriptSha(script: LuaScript): string | Promise<string> {
  const sha = known.get(script);
  if (sha !== undefined) return sha;
  let computing = pending.get(script);
  if (!computing) {
    computing = digest(script);
    pending.set(script, computing);
  }
  return computing;
}
