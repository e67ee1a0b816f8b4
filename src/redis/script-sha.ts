// A script's SHA-1, for EVALSHA, computed at run time with WebCrypto (Node,
// Workers and Vercel's edge all have it) and kept: shipping 21 hex digests
// in every bundle cost more than the digest does once per script.
import type { LuaScript } from "../types.js";

const known = new WeakMap<LuaScript, string>();
const pending = new WeakMap<LuaScript, Promise<string>>();

async function digest(script: LuaScript): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(script.text)));
  const sha = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
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
