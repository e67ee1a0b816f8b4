// Every adapter must return exactly the same values for every script and
// read: numbers, empty results, nil, nested arrays, and strings that look
// like numbers or JSON (which @upstash/redis would otherwise parse).
import { beginNamed } from "../../helpers/begin-args.js";
import { createHash } from "node:crypto";
import { Redis as UpstashRedis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upstashAdapter } from "../../../src/redis/upstash.js";
import { runScript } from "../../../src/redis/adapter.js";
import { TickqError } from "../../../src/index.js";
import { decode, encode, type TypedCall } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import type { RedisReply } from "../../../src/redis/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import type { OpenedAdapter } from "../../helpers/open-adapter.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";
import { ENQUEUE_KEYS, enqueueArgs, finishArgs, housekeepArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const TRICKY = [
  "123",
  "0123",
  "-1.5",
  "1e3",
  '{"a":1}',
  "[1,2]",
  "true",
  "null",
  "OK",
  "",
  "héllo ✓ 日本",
  "emoji 😀 (a surrogate pair)",
  "nul\u0000byte",
  "  spaced  ",
  "line\nbreak",
];

const probe = (text: string) => ({ name: "probe", text, sha: createHash("sha1").update(text).digest("hex") });

describe("adapter conformance", () => {
  let opened: OpenedAdapter[];
  const redis = directRedis();
  const prefix = uniquePrefix("conformance");
  beforeAll(() => {
    opened = adapterCases.map((c) => c.open());
  });
  afterAll(async () => {
    await deleteUnder(redis, prefix);
    redis.disconnect();
    await Promise.all(opened.map((o) => o.close()));
  });

  const every = async (text: string, keys: string[] = [], args: string[] = []): Promise<RedisReply[]> =>
    Promise.all(opened.map((o) => runScript(o.adapter, probe(text), keys, args, { count: 0 }, 5_000)));

  it.each([
    ["an integer", "return 42", 42],
    ["a negative integer", "return -7", -7],
    ["a float (Redis truncates it)", "return 3.9", 3],
    ["nil", "return nil", null],
    ["false (nil)", "return false", null],
    ["true (1)", "return true", 1],
    ["an empty array", "return {}", []],
    ["nested arrays with nil holes", "return {1, {2, {'x'}}, {}, 'y'}", [1, [2, ["x"]], [], "y"]],
    ["a status reply", "return redis.status_reply('OK')", "OK"],
  ])("%s", async (_label, text, expected) => {
    const replies = await every(text);
    for (const reply of replies) expect(reply).toEqual(expected);
  });

  it("strings that look like numbers, JSON or OK come back as the same strings", async () => {
    const replies = await every("return ARGV", [], TRICKY);
    for (const reply of replies) expect(reply).toEqual(TRICKY);
  });

  it("stored values read back byte for byte", async () => {
    const key = `${prefix}list`;
    await redis.rpush(key, ...TRICKY.filter(Boolean));
    const replies = await every("return redis.call('LRANGE', KEYS[1], 0, -1)", [key]);
    for (const reply of replies) expect(reply).toEqual(TRICKY.filter(Boolean));
  });

  it("a Lua error is a rejected call on every adapter, with Redis' message", async () => {
    const results = await Promise.allSettled(
      opened.map((o) =>
        runScript(o.adapter, probe("return redis.call('INCR', 'x', 'y')"), [], [], { count: 0 }, 5_000),
      ),
    );
    for (const r of results) {
      expect(r.status).toBe("rejected");
      expect(String((r as PromiseRejectedResult).reason.message)).toMatch(/wrong number of arg/i);
    }
  });

  it("every tickq script answers the same on every adapter", async () => {
    const replies: RedisReply[][] = [];
    for (const [i, o] of opened.entries()) {
      const p = `${prefix}${i}:`;
      // Encoded through src/protocol, run raw: the replies compared are those the adapters hand over.
      const run = <K extends object, A extends object, R>(call: TypedCall<K, A, R>, keys: K, args: A) => {
        const encoded = encode(call, keys, args);
        const prefixed = encoded.keys.map((k) => p + k);
        return runScript(o.adapter, call.script, prefixed, [p, ...encoded.args].map(String), { count: 0 }, 5_000);
      };
      const job = (n: number) => JSON.stringify({ class: "x", args: [], jid: `j${n}`, queue: "default", retry: true });
      const t1 = tickKeys("t1");
      const noFilter = { name: "", queue: "", cursor: { at: "", jid: "", near: "", nearJid: "" } };
      const statsArgs = { flowNames: [], orderedNames: [], workflowNames: [] };
      replies.push([
        await run(
          protocol.enqueue,
          ENQUEUE_KEYS,
          enqueueArgs("call-1", [{ job: job(1) }, { job: job(2) }, { job: job(3), delayMs: 60_000 }]),
        ),
        await run(protocol.begin, t1, beginNamed({ tick: "t1", leaseMs: 5_000, batch: 10 })),
        await run(protocol.extend, { lease: "tick:t1" }, { tickId: "t1", leaseMs: 5_000, load: "" }),
        await run(protocol.housekeep, t1, housekeepArgs({ tick: "t1", call: 2 })),
        await run(protocol.stats, { queues: "queues", ticks: "ticks" }, statsArgs),
        await run(
          protocol.step,
          t1,
          // The group begin fetched, named by its place alone (no job's text: "0+2", then a count of 0).
          stepArgs({
            tick: "t1",
            leaseMs: 5_000,
            call: 3,
            acks: { succeeded: [{ queue: "default", place: "0+2", jobs: [] }], others: { items: [] } },
          }),
        ),
        await run(protocol.finish, t1, finishArgs({ tick: "t1", leaseMs: 5_000, call: 4 })),
        await run(protocol.stats, { queues: "queues", ticks: "ticks" }, statsArgs),
        // the jobs API's scripts
        await run(
          protocol.locate,
          { queues: "queues", ticks: "ticks" },
          { jid: "j3", budget: 100, stage: "", position: "0" },
        ),
        await run(protocol.page, { set: "schedule" }, { ...noFilter, kind: "z", order: "asc", limit: 10, budget: 100 }),
        await run(protocol.inflight, { ticks: "ticks" }, { limit: 100 }),
        await run(protocol.pause, { paused: "paused" }, { queue: "default", paused: true }),
        await run(protocol.queues, { queues: "queues", paused: "paused" }, {}),
        await run(
          protocol.move,
          { queues: "queues" },
          {
            token: "op-1",
            keepMs: 60_000,
            jobs: [{ from: "schedule", job: job(3).replace("}", ""), action: "push", push: "", distance: "" }],
          },
        ),
        await run(protocol.clear, { set: "schedule" }, { token: "op-2", keepMs: 60_000 }),
        await run(protocol.history, { processed: "stat:processed" }, { days: 2 }),
      ]);
    }
    // Redis' clock differs between the two runs: blank it out (a time may be a word of a record: `budgets`)
    const timeless = (r: RedisReply): RedisReply =>
      Array.isArray(r)
        ? r.map(timeless)
        : typeof r === "number" && r > 1e12
          ? "<now ms>"
          : typeof r === "string"
            ? r.replace(/\d{10}\.\d+/g, "<now s>").replace(/\b\d{13}\b/g, "<now ms>")
            : r;
    // Redis' memory in use moves with every other client of the shared Redis: blank stats' usedMemory too.
    const memoryAt = Object.keys((protocol.stats.reply as { fields: object }).fields).indexOf("usedMemory");
    const statsAt = [4, 7];
    const comparable = (run: RedisReply[]): RedisReply[] =>
      run.map((reply, i) =>
        statsAt.includes(i) && Array.isArray(reply)
          ? reply.map((field, at) => (at === memoryAt ? "<memory>" : field))
          : reply,
      );
    expect(memoryAt).toBeGreaterThan(0);
    expect(replies).toHaveLength(adapterCases.length);
    for (const other of replies.slice(1))
      expect(timeless(comparable(other as RedisReply[]))).toEqual(timeless(comparable(replies[0] as RedisReply[])));
    const [, begun, , , , stepped] = replies[0]!;
    const [group] = (
      decode(protocol.begin, begun!) as {
        fetched: { queue: string; jobs: string[]; counts: unknown[]; place: unknown }[];
      }
    ).fetched;
    expect({ ...group, jobs: group!.jobs.map((j) => JSON.parse(j).jid) }).toEqual({
      queue: "default",
      jobs: ["j1", "j2"],
      counts: [],
      place: 0, // the tick's list took no job before this group
    });
    // Cut by its place: nothing missed.
    expect(decode(protocol.step, stepped!)).toMatchObject({ leaseHeld: true, deadEvicted: 0, missed: [] });
  });
});

describe("upstashAdapter", () => {
  it("refuses a client that parses replies as JSON, naming the fix", () => {
    const client = new UpstashRedis({ url: "http://127.0.0.1:1", token: "t", enableTelemetry: false });
    expect(() => upstashAdapter(client)).toThrow(TickqError);
    expect(() => upstashAdapter(client)).toThrow(/automaticDeserialization: false/);
  });
});
