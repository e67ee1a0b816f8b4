// The local server speaks Upstash's REST protocol: checked with raw HTTP and
// with an unmodified @upstash/redis client.
import { Redis as UpstashRedis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upstashAdapter } from "../../../src/redis/upstash.js";
import { startUpstashLocal, type UpstashLocalServer } from "../../../tools/upstash-local/server.js";
import { createTickq } from "../../../src/index.js";
import { upstashClient } from "../../helpers/open-adapter.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";

describe("the local Upstash-compatible server", () => {
  let server: UpstashLocalServer;
  const redis = directRedis();
  const prefix = uniquePrefix("rest");
  const TOKEN = "local-token-of-some-length";
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { Authorization: `Bearer ${TOKEN}`, ...headers },
    });

  beforeAll(async () => {
    // anyScript: the protocol's replies are checked with scripts of the test's own.
    server = await startUpstashLocal({ redisUrl: redisUrl(), token: TOKEN, anyScript: true });
  });
  afterAll(async () => {
    await server.close();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("answers 401 without the right token", async () => {
    const none = await fetch(`${server.url}/`, { method: "POST", body: '["PING"]' });
    expect(none.status).toBe(401);
    const wrong = await post("/", ["PING"], { Authorization: "Bearer nope" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: "Unauthorized" });
  });

  it("runs one command from POST / as {result}", async () => {
    expect(await (await post("/", ["SET", `${prefix}a`, "123"])).json()).toEqual({ result: "OK" });
    expect(await (await post("/", ["GET", `${prefix}a`])).json()).toEqual({ result: "123" });
    expect(await (await post("/", ["INCR", `${prefix}a`])).json()).toEqual({ result: 124 });
    expect(await (await post("/", ["GET", `${prefix}missing`])).json()).toEqual({ result: null });
  });

  it("base64-encodes every string but OK when asked", async () => {
    await redis.set(`${prefix}b`, "héllo");
    const res = await post("/", ["GET", `${prefix}b`], { "Upstash-Encoding": "base64" });
    expect(await res.json()).toEqual({ result: Buffer.from("héllo").toString("base64") });
    const ok = await post("/", ["SET", `${prefix}b`, "x"], { "Upstash-Encoding": "base64" });
    expect(await ok.json()).toEqual({ result: "OK" });
    const nested = await post("/", ["EVAL", "return {1, 'a', {'b'}, false}", "0"], { "Upstash-Encoding": "base64" });
    expect(await nested.json()).toEqual({ result: [1, "YQ==", ["Yg=="], null] });
  });

  it("answers a command error with 400 {error}", async () => {
    const res = await post("/", ["GET"]);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/wrong number of arguments/i);
    const bad = await fetch(`${server.url}/`, {
      method: "POST",
      body: "not json",
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatch(/JSON array/);
  });

  it("runs a pipeline, each command with its own result or error", async () => {
    const res = await post("/pipeline", [
      ["SET", `${prefix}c`, "1"],
      ["INCR", `${prefix}c`],
      ["HGET", `${prefix}c`, "f"],
      ["GET", `${prefix}c`],
    ]);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body[0]).toEqual({ result: "OK" });
    expect(body[1]).toEqual({ result: 2 });
    expect(body[2].error).toMatch(/WRONGTYPE/);
    expect(body[3]).toEqual({ result: "2" });
  });

  it("runs multi-exec as one transaction", async () => {
    const res = await post("/multi-exec", [
      ["INCR", `${prefix}d`],
      ["INCR", `${prefix}d`],
    ]);
    expect(await res.json()).toEqual([{ result: 1 }, { result: 2 }]);
  });

  it("takes commands in the path, for curl", async () => {
    await redis.set(`${prefix}e`, "v");
    const res = await fetch(`${server.url}/get/${encodeURIComponent(`${prefix}e`)}`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(await res.json()).toEqual({ result: "v" });
  });

  describe("refuses what would break or hang the shared connection", () => {
    // [command, why] — run against this file's own server; a command that
    // slipped through would hang or break it, so every request has a timeout.
    const k = () => `${prefix}blocked`;
    const refused: [string, () => (string | number)[], RegExp][] = [
      ["SELECT", () => ["SELECT", "1"], /state of the connection/],
      ["AUTH", () => ["AUTH", "nobody", "nothing"], /state of the connection/],
      ["HELLO", () => ["HELLO", "3"], /state of the connection/],
      ["RESET", () => ["RESET"], /state of the connection/],
      ["QUIT", () => ["QUIT"], /state of the connection/],
      ["READONLY", () => ["READONLY"], /state of the connection/],
      ["READWRITE", () => ["READWRITE"], /state of the connection/],
      ["CLIENT SETNAME", () => ["CLIENT", "SETNAME", "x"], /state of the connection/],
      ["MULTI", () => ["MULTI"], /state of the connection.*multi-exec/],
      ["EXEC", () => ["EXEC"], /state of the connection.*multi-exec/],
      ["DISCARD", () => ["DISCARD"], /state of the connection.*multi-exec/],
      ["WATCH", () => ["WATCH", k()], /state of the connection.*multi-exec/],
      ["UNWATCH", () => ["UNWATCH"], /state of the connection.*multi-exec/],
      ["BLPOP", () => ["BLPOP", k(), 0], /blocks the connection/],
      ["BRPOP", () => ["BRPOP", k(), "0"], /blocks the connection/],
      ["BLMOVE", () => ["BLMOVE", k(), `${k()}2`, "LEFT", "RIGHT", "0"], /blocks the connection/],
      ["BRPOPLPUSH", () => ["BRPOPLPUSH", k(), `${k()}2`, "0"], /blocks the connection/],
      ["BZPOPMIN", () => ["BZPOPMIN", k(), "0"], /blocks the connection/],
      ["BZPOPMAX", () => ["BZPOPMAX", k(), "0"], /blocks the connection/],
      ["BLMPOP", () => ["BLMPOP", "0", "1", k(), "LEFT"], /blocks the connection/],
      ["BZMPOP", () => ["BZMPOP", "0", "1", k(), "MIN"], /blocks the connection/],
      ["WAIT", () => ["WAIT", "1", "0"], /blocks the connection/],
      ["WAITAOF", () => ["WAITAOF", "1", "1", "0"], /blocks the connection/],
      ["XREAD with BLOCK", () => ["XREAD", "COUNT", "1", "BLOCK", "0", "STREAMS", k(), "$"], /blocks the connection/],
      [
        "XREADGROUP with BLOCK",
        () => ["xreadgroup", "GROUP", "g", "c", "block", "0", "STREAMS", k(), ">"],
        /blocks the connection/,
      ],
      ["SUBSCRIBE", () => ["SUBSCRIBE", k()], /pub\/sub/],
      ["PSUBSCRIBE", () => ["PSUBSCRIBE", `${k()}*`], /pub\/sub/],
      ["SSUBSCRIBE", () => ["SSUBSCRIBE", k()], /pub\/sub/],
      ["UNSUBSCRIBE", () => ["UNSUBSCRIBE"], /pub\/sub/],
      ["PUNSUBSCRIBE", () => ["PUNSUBSCRIBE"], /pub\/sub/],
      ["SUNSUBSCRIBE", () => ["SUNSUBSCRIBE"], /pub\/sub/],
      ["MONITOR", () => ["monitor"], /MONITOR turns the connection/],
      ["CLIENT REPLY", () => ["client", "reply", "off"], /CLIENT REPLY stops or skips/],
      ["CLIENT REPLY", () => ["CLIENT", "REPLY", "SKIP"], /CLIENT REPLY stops or skips/],
    ];
    const timed = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { Authorization: `Bearer ${TOKEN}` },
        signal: AbortSignal.timeout(5_000),
      });

    it.each(refused)("refuses %s from POST / with 400 naming the command and why", async (name, command, why) => {
      const res = await timed("/", command());
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error).toContain(`ERR ${name} is refused`);
      expect(error).toMatch(why);
    });

    it.each(refused)(
      "refuses a whole /pipeline and /multi-exec holding %s, and runs none of it",
      async (name, command, why) => {
        for (const path of ["/pipeline", "/multi-exec"]) {
          const key = `${prefix}untouched${path}`;
          const res = await timed(path, [["SET", key, "ran"], command()]);
          expect(res.status).toBe(400);
          const { error } = await res.json();
          expect(error).toContain(`ERR ${name} is refused`);
          expect(error).toMatch(why);
          expect(error).toMatch(/command 2 of 2; nothing ran/);
          expect(await redis.get(key)).toBeNull();
        }
      },
    );

    it.each([
      ["SELECT", "/select/1"],
      ["BLPOP", `/blpop/${encodeURIComponent(`${prefix}blocked`)}/0`],
      ["SUBSCRIBE", "/subscribe/ch"],
      ["MONITOR", "/monitor"],
      ["CLIENT REPLY", "/client/reply/off"],
      ["MULTI", "/multi"],
    ])("refuses %s in the path form, GET and POST", async (name, path) => {
      for (const method of ["GET", "POST"]) {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: { Authorization: `Bearer ${TOKEN}` },
          signal: AbortSignal.timeout(5_000),
        });
        expect(res.status).toBe(400);
        expect((await res.json()).error).toContain(`ERR ${name} is refused`);
      }
    });

    it("still reads db 0 after a refused SELECT", async () => {
      await redis.set(`${prefix}db0`, "zero");
      expect((await timed("/", ["SELECT", "1"])).status).toBe(400);
      expect(await (await timed("/", ["GET", `${prefix}db0`])).json()).toEqual({ result: "zero" });
    });

    it("a refused BLPOP k 0 does not hang a concurrent GET", async () => {
      const own = await startUpstashLocal({ redisUrl: redisUrl(), token: TOKEN });
      try {
        await redis.set(`${prefix}beside`, "here");
        const call = (body: unknown) =>
          fetch(`${own.url}/`, {
            method: "POST",
            body: JSON.stringify(body),
            headers: { Authorization: `Bearer ${TOKEN}` },
            signal: AbortSignal.timeout(3_000),
          });
        const started = performance.now();
        const [blpop, get] = await Promise.all([
          call(["BLPOP", `${prefix}never`, "0"]),
          call(["GET", `${prefix}beside`]),
        ]);
        expect(blpop.status).toBe(400);
        expect((await blpop.json()).error).toMatch(/BLPOP is refused.*blocks the connection/);
        expect(get.status).toBe(200);
        expect(await get.json()).toEqual({ result: "here" });
        expect(await (await call(["GET", `${prefix}beside`])).json()).toEqual({ result: "here" });
        expect(performance.now() - started).toBeLessThan(2_000);
      } finally {
        await own.close();
      }
    });

    it("still runs what only looks like a refused command", async () => {
      const stream = `${prefix}stream`;
      await redis.xgroup("CREATE", stream, "BLOCK", "$", "MKSTREAM"); // a group named BLOCK
      const ok = async (command: (string | number)[]) => {
        const res = await timed("/", command);
        const body = await res.json();
        expect(body.error ?? "").not.toMatch(/refused/);
        return { status: res.status, body };
      };
      expect(await ok(["PUBLISH", `${prefix}ch`, "hi"])).toEqual({ status: 200, body: { result: 0 } });
      expect(await ok(["XREAD", "COUNT", "1", "STREAMS", stream, "0"])).toEqual({
        status: 200,
        body: { result: null },
      });
      expect(await ok(["XREADGROUP", "GROUP", "BLOCK", "consumer", "COUNT", "1", "STREAMS", stream, ">"])).toEqual({
        status: 200,
        body: { result: null },
      });
      expect(await ok(["XREAD", "STREAMS", "BLOCK", "0"])).toEqual({ status: 200, body: { result: null } }); // a stream key named BLOCK
      expect(await ok(["SET", `${prefix}BLPOP`, "SELECT"])).toEqual({ status: 200, body: { result: "OK" } });
    });
  });

  it("answers a bad percent-escape in the path with 400, and decodes good ones once", async () => {
    const res = await fetch(`${server.url}/get/%E0%A4%A`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/bad percent-escape in the path segment "%E0%A4%A"/);
    const lone = await fetch(`${server.url}/get/100%`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(lone.status).toBe(400);
    expect((await lone.json()).error).toMatch(/bad percent-escape/);
    const key = `${prefix}a/b c%41€`;
    await redis.set(key, "odd");
    const good = await fetch(`${server.url}/get/${encodeURIComponent(key)}`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(await good.json()).toEqual({ result: "odd" });
  });

  it("works with an unmodified @upstash/redis client, pipelines and transactions included", async () => {
    const client = new UpstashRedis({ url: server.url, token: TOKEN, enableTelemetry: false });
    await client.set(`${prefix}f`, "0123");
    expect(await client.get(`${prefix}f`)).toBe("0123");
    await client.set(`${prefix}g`, { nested: [1, 2] });
    expect(await client.get(`${prefix}g`)).toEqual({ nested: [1, 2] });
    const p = client.pipeline();
    p.incr(`${prefix}h`);
    p.incr(`${prefix}h`);
    expect(await p.exec()).toEqual([1, 2]);
    const tx = client.multi();
    tx.lpush(`${prefix}i`, "a", "b");
    tx.lrange(`${prefix}i`, 0, -1);
    expect(await tx.exec()).toEqual([2, ["b", "a"]]);
    await expect(client.evalsha("0".repeat(40), [], [])).rejects.toThrow(/NOSCRIPT/);
  });

  it("counts in report.roundTrips exactly the HTTP requests a tick makes", async () => {
    const own = await startUpstashLocal({ redisUrl: redisUrl(), token: TOKEN });
    try {
      const tq = createTickq({
        redis: upstashAdapter(upstashClient(own.url, TOKEN)),
        prefix: `${prefix}trips:`,
        jobs: { noop: () => {} },
      });
      await tq.enqueueBulk(Array.from({ length: 250 }, () => ({ name: "noop", args: [] })));
      await tq.tick(); // warm the script cache
      await tq.enqueueBulk(Array.from({ length: 250 }, () => ({ name: "noop", args: [] })));
      const before = own.requests();
      // A stall of the process (a loaded host) lowers the rate the slots freed at, so the tick fetches
      // less a step, and a tick longer than cancelCheckMs adds an extend. As many slots as jobs: every
      // fetch a whole batch whatever the rate; a cancel check at 10 s: no extend.
      const report = await tq.tick({ batch: 100, concurrency: 250, cancelCheckMs: 10_000 });
      expect(report.succeeded).toBe(250);
      expect(report.roundTrips).toBe(own.requests() - before);
      // begin (fetch 100), steps fetching 100 each (one may come back short or empty), finish
      expect(report.roundTrips).toBeLessThanOrEqual(5);
    } finally {
      await own.close();
    }
  });

  it("adds the latency it is given to every request", async () => {
    const slow = await startUpstashLocal({ redisUrl: redisUrl(), token: TOKEN, latencyMs: 60 });
    try {
      const started = performance.now();
      await fetch(`${slow.url}/`, { method: "POST", body: '["PING"]', headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(performance.now() - started).toBeGreaterThanOrEqual(55);
      expect(slow.requests()).toBe(1);
    } finally {
      await slow.close();
    }
  });
});
