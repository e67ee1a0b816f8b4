// The descriptor a flow job's JSON opens with (its first field, so Lua
// tells a flow job by its first bytes): "SHAPE|KEYS|JID" (JID empty for a
// job of one unique key and nothing else). SHAPE is "NAME
// QUEUE [u] [l LIMIT]… [r LIMIT PERIOD_MS] [c] [w]", the same for every
// job of a name, queue and limits, so Lua reads it once a call
// (src/lua/lib/flow/read.lua); KEYS are the job's keys, one a tag in
// the tags' order: `u` a unique slot, `l` a slot of a key with LIMIT
// holders, `r` a rate limit, `c` the until-executed claim, `w` the
// coalesce wait claim. Every word is escaped so none holds a space, a
// `|`, a quote, a backslash or a control character: those and `%` become
// %XX, as in a URI; everything else keeps its bytes, so keys read as
// written in Redis.
// Keys longer than LONG_KEY (a default key holds the args) are hashed.
import type { FlowPlan } from "./plan.js";

export const FLOW_FIELD = "tickq_flow";
const HEAD = `{"${FLOW_FIELD}":"`;
const LONG_KEY = 256;
/** What a key hashed for being long starts with (after a unique key's `u:`). */
const HASHED = "sha256-";
const HASHED_KEY = new RegExp(`^(u:)?${HASHED}[0-9a-f]{64}$`);

/** Reversed by decodeURIComponent. */
export function escapeWord(word: string): string {
  return word.replace(
    /[\x00-\x20%"|\\\x7f]/g,
    (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase()}`,
  );
}

/** A key as the descriptor writes it: escaped, or hashed when long — keeping a unique key's `u:`, by which Lua tells where its holder is kept. */
async function short(key: string): Promise<string> {
  if (key.length <= LONG_KEY) return escapeWord(key);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  const kind = key.startsWith("u:") ? "u:" : "";
  return `${kind}${HASHED}${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export async function flowDescriptor(plan: FlowPlan, jid: string, name: string, queue: string): Promise<string> {
  const shape = [escapeWord(name), escapeWord(queue)];
  const keys: string[] = [];
  for (const [key, limit, unique] of plan.locks) {
    if (unique) shape.push("u");
    else shape.push("l", String(limit));
    keys.push(await short(key));
  }
  if (plan.rate) {
    shape.push("r", String(plan.rate.limit), String(plan.rate.periodMs));
    keys.push(await short(plan.rate.key));
  }
  if (plan.claim !== undefined) {
    shape.push("c");
    keys.push(await short(plan.claim));
  }
  if (plan.wait !== undefined) {
    shape.push("w");
    keys.push(await short(plan.wait));
  }
  // Lua reads the jid only for the other shapes (holders of a shared key,
  // claims, deferrals): a job of one unique key and nothing else, the
  // commonest and the one every fetch and ack reads, goes without it.
  const oneUnique = keys.length === 1 && plan.locks.length === 1 && plan.locks[0]![2];
  return `${shape.join(" ")}|${keys.join(" ")}|${oneUnique ? "" : escapeWord(jid)}`;
}

/** Whether a stored job is a flow job (lib/flow/read.lua's is_flow). */
export function isFlowJob(raw: string): boolean {
  return raw.startsWith(HEAD);
}

/** A stored flow job's key under one tag: as written, and whether it is whole (not hashed for its length). */
export interface StoredFlowKey {
  key: string;
  whole: boolean;
}

/**
 * The keys a stored job's descriptor carries, the first of each tag (`u`, `l`, `r`, `c`, `w`):
 * undefined for a job with no descriptor, or one that is not JSON; null for a descriptor this
 * reader cannot follow (an unknown tag, a key missing).
 */
export function readFlowKeys(raw: string): Map<string, StoredFlowKey> | null | undefined {
  if (!isFlowJob(raw)) return undefined;
  let descriptor: unknown;
  try {
    descriptor = (JSON.parse(raw) as Record<string, unknown>)[FLOW_FIELD];
  } catch {
    return undefined;
  }
  if (typeof descriptor !== "string") return undefined;
  const [shape = "", keyWords = ""] = descriptor.split("|");
  const tags = shape.split(" ").slice(2);
  const keys = keyWords.split(" ").map(decodeURIComponent);
  const found = new Map<string, StoredFlowKey>();
  let k = 0;
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i]!;
    // A limit, and a rate's limit and period, follow their tag in the shape.
    if (tag === "l") i += 1;
    else if (tag === "r") i += 2;
    else if (tag !== "u" && tag !== "c" && tag !== "w") return null;
    const key = keys[k++];
    if (key === undefined) return null;
    if (!found.has(tag)) found.set(tag, { key, whole: !HASHED_KEY.test(key) });
  }
  return found;
}
