// Every adapter must return exactly the same values for every script and
// read: numbers, empty results, nil, nested arrays, and strings that look
// like numbers or JSON (which @upstash/redis would otherwise parse).
import { beginArgs } from "../../helpers/begin-args.js";
import { createHash } from "node:crypto";
import { Redis as UpstashRedis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upstashAdapter } from "../../../src/redis/upstash.js";
import { runScript } from "../../../src/redis/adapter.js";
import { TickqError } from "../../../src/index.js";
import { scripts } from "../../../src/lua/index.js";
import type { RedisReply } from "../../../src/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import type { OpenedAdapter } from "../../helpers/open-adapter.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

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
      const run = (name: keyof typeof scripts, keys: string[], args: (string | number)[]) =>
        runScript(o.adapter, scripts[name], keys, [p, ...args].map(String), { count: 0 }, 5_000);
      const job = (n: number) => JSON.stringify({ class: "x", args: [], jid: `j${n}`, queue: "default", retry: true });
      const fetch = [10, 1, "default", 0];
      replies.push([
        await run(
          "enqueue",
          [`${p}queues`, `${p}schedule`],
          [
            "call-1",
            60_000,
            60_000,
            3,
            "default",
            0,
            0,
            "",
            job(1),
            "default",
            0,
            0,
            "",
            job(2),
            "default",
            60_000,
            0,
            "",
            job(3),
          ],
        ),
        await run("begin", [`${p}ticks`, `${p}tick:t1`], beginArgs({ tick: "t1", leaseMs: 5_000, batch: 10 })),
        await run("extend", [`${p}tick:t1`], ["t1", 5_000, ""]),
        await run("housekeep", [`${p}ticks`, `${p}tick:t1`], ["t1", 2, 100, 5_000, 100, 100]),
        await run("stats", [`${p}queues`, `${p}ticks`], []),
        await run(
          "step",
          [`${p}ticks`, `${p}tick:t1`],
          ["t1", 5_000, 100, 3_600, 3, 1, "default", 2, job(1), job(2), 0, ...fetch],
        ),
        await run("finish", [`${p}ticks`, `${p}tick:t1`], ["t1", 5_000, 100, 3_600, 4, 0, 0, 1, "default"]),
        await run("stats", [`${p}queues`, `${p}ticks`], []),
        // the jobs API's scripts
        await run("locate", [`${p}queues`, `${p}ticks`], ["j3", 100, "", "0"]),
        await run("page", [`${p}schedule`], ["z", "asc", 10, 100, "", "", "", "", "", ""]),
        await run("inflight", [`${p}ticks`], [100]),
        await run("pause", [`${p}paused`], ["default", 1]),
        await run("queues", [`${p}queues`, `${p}paused`], []),
        await run("move", [`${p}queues`], ["op-1", 60_000, 1, "schedule", job(3).replace("}", ""), "push", "", ""]),
        await run("clear", [`${p}schedule`], ["op-2", 60_000]),
        await run("history", [], [2]),
      ]);
    }
    // Redis' clock differs between the two runs: blank it out
    const timeless = (r: RedisReply): RedisReply =>
      Array.isArray(r)
        ? r.map(timeless)
        : typeof r === "number" && r > 1e12
          ? "<now ms>"
          : typeof r === "string"
            ? r.replace(/\d{10}\.\d+/g, "<now s>").replace(/^\d{13}$/, "<now ms>")
            : r;
    expect(replies).toHaveLength(adapterCases.length);
    for (const other of replies.slice(1)) expect(timeless(other)).toEqual(timeless(replies[0]!));
    const [, begun, , , , stepped] = replies[0]!;
    const [queue, fetched, counts] = (begun as RedisReply[])[5] as RedisReply[];
    expect([queue, (fetched as string[]).map((j) => JSON.parse(j).jid), counts]).toEqual(["default", ["j1", "j2"], []]);
    expect((stepped as RedisReply[]).slice(1, 3)).toEqual([1, 0]); // lease held, no evictions
  });
});

describe("upstashAdapter", () => {
  it("refuses a client that parses replies as JSON, naming the fix", () => {
    const client = new UpstashRedis({ url: "http://127.0.0.1:1", token: "t", enableTelemetry: false });
    expect(() => upstashAdapter(client)).toThrow(TickqError);
    expect(() => upstashAdapter(client)).toThrow(/automaticDeserialization: false/);
  });
});
