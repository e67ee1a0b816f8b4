// The descriptor a flow job's JSON opens with (its first field, so Lua
// tells a flow job by its first bytes): "SHAPE|KEYS|JID" (JID empty for a
// job of one unique key and nothing else). SHAPE is "NAME
// QUEUE [u] [l LIMIT]… [r LIMIT PERIOD_MS] [c] [w]", the same for every
// job of a name, queue and limits, so Lua reads it once a call
// (src/lua/lib/flow/read.lua, the grammar's one other copy, held to this one
// by test/integration/flow/descriptor-grammar.test.ts); KEYS are the job's keys, one a tag in
// the tags' order: `u` a unique slot, `l` a slot of a key with LIMIT
// holders, `r` a rate limit, `c` the until-executed claim, `w` the
// coalesce wait claim. Every word is escaped so none holds a space, a
// `|`, a quote, a backslash or a control character: those and `%` become
// %XX, as in a URI; everything else keeps its bytes, so keys read as
// written in Redis.
// Keys longer than LONG_KEY (a default key holds the args) are hashed.

/** What lib/flow.lua enforces for one job; keys are namespaced, not yet encoded. */
export interface FlowPlan {
  /** Slots to hold while it runs: [key, limit, unique] (unique: one holder, kept apart in Redis). */
  locks: [string, number, boolean][];
  rate?: { key: string; limit: number; periodMs: number };
  /** until-executed: the key claimed from enqueue to success or death. */
  claim?: string;
  /** coalesce: the key claimed while it waits. */
  wait?: string;
}

/** The shape's tags, each with how many numbers follow it in the shape (a limit; a rate's limit and period). */
export const FLOW_TAGS = { u: 0, l: 1, r: 2, c: 0, w: 0 } as const;
export type FlowTag = keyof typeof FLOW_TAGS;

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

/** One tag of a descriptor: the tag, the numbers that follow it in the shape, and its key. */
export interface FlowEntry {
  tag: FlowTag;
  numbers: number[];
  key: string;
}

/** A plan's tags in the order the grammar writes them: locks, then the rate, the claim, the wait. */
function entriesOf(plan: FlowPlan): FlowEntry[] {
  const entries: FlowEntry[] = plan.locks.map(([key, limit, unique]) =>
    unique ? { tag: "u", numbers: [], key } : { tag: "l", numbers: [limit], key },
  );
  if (plan.rate) entries.push({ tag: "r", numbers: [plan.rate.limit, plan.rate.periodMs], key: plan.rate.key });
  if (plan.claim !== undefined) entries.push({ tag: "c", numbers: [], key: plan.claim });
  if (plan.wait !== undefined) entries.push({ tag: "w", numbers: [], key: plan.wait });
  return entries;
}

export async function flowDescriptor(plan: FlowPlan, jid: string, name: string, queue: string): Promise<string> {
  const shape = [escapeWord(name), escapeWord(queue)];
  const keys: string[] = [];
  for (const { tag, numbers, key } of entriesOf(plan)) {
    if (numbers.length !== FLOW_TAGS[tag]) throw new Error(`flow tag ${tag} takes ${FLOW_TAGS[tag]} numbers`);
    shape.push(tag, ...numbers.map(String));
    keys.push(await short(key));
  }
  // Lua reads the jid only for the other shapes (holders of a shared key,
  // claims, deferrals): a job of one unique key and nothing else, the
  // commonest and the one every fetch and ack reads, goes without it.
  const oneUnique = keys.length === 1 && plan.locks.length === 1 && plan.locks[0]![2];
  return `${shape.join(" ")}|${keys.join(" ")}|${oneUnique ? "" : escapeWord(jid)}`;
}

/** A descriptor read back: its name, queue, tags with their keys, and jid, each word as written (escaped; a long key hashed). */
export interface ReadDescriptor {
  name: string;
  queue: string;
  entries: FlowEntry[];
  jid: string;
}

/**
 * Reads "SHAPE|KEYS|JID" as lib/flow/read.lua's F.read does: null for a text that is not one (an
 * unknown tag, a limit or period not a whole number of at least 1, another count of keys than tags).
 */
export function readDescriptor(descriptor: string): ReadDescriptor | null {
  const [shapeText = "", keysText, ...jidParts] = descriptor.split("|");
  if (keysText === undefined || jidParts.length === 0) return null;
  const words = shapeText.split(" ").filter((w) => w !== "");
  const keys = keysText.split(" ").filter((w) => w !== "");
  if (words.length < 2) return null;
  const entries: FlowEntry[] = [];
  for (let i = 2; i < words.length; ) {
    const tag = words[i]!;
    if (!Object.hasOwn(FLOW_TAGS, tag)) return null;
    const numbers = words.slice(i + 1, i + 1 + FLOW_TAGS[tag as FlowTag]).map(Number);
    if (numbers.length !== FLOW_TAGS[tag as FlowTag] || !numbers.every((n) => Number.isFinite(n) && n >= 1))
      return null;
    const key = keys[entries.length];
    if (key === undefined) return null;
    entries.push({ tag: tag as FlowTag, numbers, key });
    i += 1 + numbers.length;
  }
  if (keys.length !== entries.length) return null;
  return { name: words[0]!, queue: words[1]!, entries, jid: jidParts.join("|") };
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
 * reader cannot follow (readDescriptor's null: an unknown tag, a bad number, a key missing or over).
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
  const read = readDescriptor(descriptor);
  if (!read) return null;
  const found = new Map<string, StoredFlowKey>();
  for (const { tag, key: word } of read.entries) {
    if (found.has(tag)) continue;
    const key = decodeURIComponent(word);
    found.set(tag, { key, whole: !HASHED_KEY.test(key) });
  }
  return found;
}
