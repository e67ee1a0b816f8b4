// The flow descriptor's grammar is written twice: in TypeScript
// (src/job/flow-descriptor.ts: the writer, readDescriptor, readFlowKeys) and
// in Lua (lib/flow/read.lua: the reader every fetch and ack uses). Random
// plans — names, queues and keys holding every character the escaping
// touches, keys long enough to be hashed, every tag in every count — are
// written by the TypeScript and read by Redis' own Lua; both readers must
// find the same name, queue, tags, numbers, keys and jid, and refuse the
// same broken descriptors (an unknown tag, a limit of 0, a key missing or
// over).
import type { Redis } from "ioredis";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { includeOf, librariesFor } from "../../../scripts/lua-includes.mjs";
import {
  escapeWord,
  type FlowPlan,
  flowDescriptor,
  readDescriptor,
  readFlowKeys,
} from "../../../src/job/flow-descriptor.js";
import { directRedis } from "../../helpers/redis.js";

const LUA_DIR = new URL("../../../src/lua/", import.meta.url);
const luaText = (file: string) => readFileSync(new URL(file, LUA_DIR), "utf8");

/** lib/flow/read.lua with the libraries it includes, and a driver: each ARGV after the prefix is a job; each answer F.read's, as JSON, or false. */
function readerScript(): string {
  const includesOf = (file: string) => {
    try {
      return luaText(file)
        .split("\n")
        .map(includeOf)
        .filter((p): p is string => p !== undefined);
    } catch {
      return undefined;
    }
  };
  const libraries = librariesFor(["lib/flow/read.lua"], includesOf).map(luaText);
  const driver = `
local F = {}
flow_read(F)
local out = {}
for i = 2, #ARGV do
  local t, jid = F.read(ARGV[i])
  out[#out + 1] = t and cjson.encode({ t = t, jid = jid }) or false
end
return out`;
  return [...libraries, driver].join("\n");
}

/** A small seeded generator, so a failure names a seed that repeats it. */
function randomOf(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Characters the escaping changes (space, |, %, quote, backslash, controls) and some it keeps. */
const ALPHABET = [
  "a",
  "b",
  "z",
  "0",
  "9",
  ":",
  "-",
  " ",
  "|",
  "%",
  '"',
  "\\",
  "\n",
  "\x00",
  "\x7f",
  "é",
  "字",
  "🙂",
  "u",
  "l",
];

function wordOf(random: () => number, long: boolean): string {
  const length = long ? 257 + Math.floor(random() * 40) : 1 + Math.floor(random() * 12);
  let word = "";
  for (let i = 0; i < length; i++) word += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return word;
}

function planOf(random: () => number): FlowPlan {
  const key = (prefix = "") => prefix + wordOf(random, random() < 0.1);
  const locks: FlowPlan["locks"] = [];
  const count = Math.floor(random() * 4);
  for (let i = 0; i < count; i++) {
    if (random() < 0.5) locks.push([key("u:"), 1, true]);
    else locks.push([key(), 1 + Math.floor(random() * 50), false]);
  }
  const plan: FlowPlan = { locks };
  if (random() < 0.4)
    plan.rate = { key: key(), limit: 1 + Math.floor(random() * 100), periodMs: 1 + Math.floor(random() * 86_400_000) };
  if (random() < 0.3) plan.claim = key("u:");
  if (random() < 0.3) plan.wait = key("u:");
  return plan;
}

/** What F.read answers, in TypeScript terms: the tags in the order Lua groups them (locks, rate, claim, wait). */
interface Read {
  name: string;
  queue: string;
  locks: { key: string; limit: number; unique: boolean }[];
  rate?: { key: string; limit: number; period: number };
  claim?: string;
  wait?: string;
  jid: string;
}

function fromLua(reply: string | null): Read | null {
  if (reply === null) return null;
  const { t, jid } = JSON.parse(reply) as {
    t: Omit<Read, "jid" | "locks"> & { locks: Read["locks"] | object };
    jid: string;
  };
  // cjson writes an empty table as {}.
  return { ...t, locks: Array.isArray(t.locks) ? t.locks : [], jid };
}

function fromTs(descriptor: string): Read | null {
  const read = readDescriptor(descriptor);
  if (!read) return null;
  const out: Read = { name: read.name, queue: read.queue, locks: [], jid: read.jid };
  for (const { tag, numbers, key } of read.entries) {
    if (tag === "u") out.locks.push({ key, limit: 1, unique: true });
    else if (tag === "l") out.locks.push({ key, limit: numbers[0]!, unique: false });
    else if (tag === "r") out.rate = { key, limit: numbers[0]!, period: numbers[1]! };
    else if (tag === "c") out.claim = key;
    else out.wait = key;
  }
  return out;
}

const jobText = (descriptor: string) => `{"tickq_flow":${JSON.stringify(descriptor)},"class":"x","args":[]}`;

/** Breaks a descriptor in one of the ways both readers must refuse. */
function broken(descriptor: string, random: () => number): string {
  const [shape, keys, jid] = descriptor.split("|") as [string, string, string];
  const words = shape.split(" ");
  const way = Math.floor(random() * 4);
  if (way === 0) return `${shape} z|${keys} k|${jid}`; // an unknown tag
  if (way === 1) return `${shape} l 0|${keys} k|${jid}`; // a limit below 1
  if (way === 2) return `${shape}|${keys} extra|${jid}`; // a key more than tags
  return words.length > 2 ? `${shape}|${keys.split(" ").slice(1).join(" ")}|${jid}` : `${shape} c|${keys}|${jid}`; // a key fewer
}

describe("the flow descriptor's grammar, in TypeScript and in Lua", () => {
  let redis: Redis;
  let script: string;
  beforeAll(() => {
    redis = directRedis();
    script = readerScript();
  });
  afterAll(() => redis.disconnect());

  const readInLua = async (descriptors: string[]) =>
    ((await redis.eval(script, 0, "tickq-test:grammar:", ...descriptors.map(jobText))) as (string | null)[]).map(
      fromLua,
    );

  it("reads every descriptor the writer makes as the writer meant it, in both readers", async () => {
    for (const seed of [1, 2, 3]) {
      const random = randomOf(seed);
      const cases = await Promise.all(
        Array.from({ length: 300 }, async () => {
          const plan = planOf(random);
          const name = wordOf(random, false);
          const queue = wordOf(random, false);
          const jid = wordOf(random, false);
          return { plan, name, queue, jid, descriptor: await flowDescriptor(plan, jid, name, queue) };
        }),
      );
      const lua = await readInLua(cases.map((c) => c.descriptor));
      cases.forEach(({ plan, name, queue, descriptor }, i) => {
        const where = `seed ${seed}, case ${i}: ${descriptor}`;
        const ts = fromTs(descriptor);
        expect(lua[i], where).toEqual(ts);
        expect(ts?.name, where).toBe(escapeWord(name));
        expect(ts?.queue, where).toBe(escapeWord(queue));
        expect(
          ts?.locks.map((l) => [l.limit, l.unique]),
          where,
        ).toEqual(plan.locks.map(([, limit, u]) => [limit, u]));
        expect([ts?.rate?.limit, ts?.rate?.period], where).toEqual([plan.rate?.limit, plan.rate?.periodMs]);
        // The keys come back as written: whole ones unescape to the plan's.
        const keys = readFlowKeys(jobText(descriptor))!;
        const first = plan.locks.find(([, , u]) => u)?.[0];
        if (first !== undefined && keys.get("u")!.whole) expect(keys.get("u")!.key, where).toBe(first);
        if (plan.rate && keys.get("r")!.whole) expect(keys.get("r")!.key, where).toBe(plan.rate.key);
        if (plan.claim !== undefined && keys.get("c")!.whole) expect(keys.get("c")!.key, where).toBe(plan.claim);
      });
    }
  });

  it("refuses the same broken descriptors in both readers", async () => {
    const random = randomOf(7);
    const descriptors = await Promise.all(
      Array.from({ length: 300 }, async () => {
        const plan = planOf(random);
        return broken(await flowDescriptor(plan, wordOf(random, false), "job", "default"), random);
      }),
    );
    const lua = await readInLua(descriptors);
    descriptors.forEach((descriptor, i) => {
      expect(lua[i], descriptor).toBeNull();
      expect(readDescriptor(descriptor), descriptor).toBeNull();
    });
  });
});
