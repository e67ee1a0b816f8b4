// The descriptor a flow job's JSON opens with (its first field, so Lua
// tells a flow job by its first bytes): "JID NAME QUEUE [l LIMIT KEY]…
// [r LIMIT PERIOD_MS KEY] [c KEY] [w KEY]", every word escaped so none
// holds a space, a quote, a backslash or a control character: those and
// `%` become %XX, as in a URI; everything else keeps its bytes, so keys
// read as written in Redis (src/scripts/lib/flow.lua reads them).
// Keys longer than LONG_KEY (a default key holds the args) are hashed.
import type { FlowPlan } from "./plan.js";

export const FLOW_FIELD = "tickq_flow";
const HEAD = `{"${FLOW_FIELD}":"`;
const LONG_KEY = 256;

/** Reversed by decodeURIComponent. */
export function escapeWord(word: string): string {
  return word.replace(/[\x00-\x20%"\\\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase()}`);
}

async function short(key: string): Promise<string> {
  if (key.length <= LONG_KEY) return escapeWord(key);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  return `sha256-${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export async function flowDescriptor(plan: FlowPlan, jid: string, name: string, queue: string): Promise<string> {
  const words = [escapeWord(jid), escapeWord(name), escapeWord(queue)];
  for (const [key, limit] of plan.locks) words.push("l", String(limit), await short(key));
  if (plan.rate) words.push("r", String(plan.rate.limit), String(plan.rate.periodMs), await short(plan.rate.key));
  if (plan.claim !== undefined) words.push("c", await short(plan.claim));
  if (plan.wait !== undefined) words.push("w", await short(plan.wait));
  return words.join(" ");
}

/** The URI-encoded jid a flow job's descriptor names, or undefined for a plain job. */
export function flowJidOf(raw: string): string | undefined {
  if (!raw.startsWith(HEAD)) return undefined;
  const end = raw.indexOf(" ", HEAD.length);
  return end < 0 ? undefined : raw.slice(HEAD.length, end);
}
