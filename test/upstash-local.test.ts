// The local server speaks Upstash's REST protocol: checked with raw HTTP and
// with an unmodified @upstash/redis client.
import { Redis as UpstashRedis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upstashAdapter } from "../adapters/upstash.js";
import { startUpstashLocal, type UpstashLocalServer } from "../functions/upstash-local/server.js";
import { createTickq } from "../src/index.js";
import { upstashClient } from "./helpers/open-adapter.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "./helpers/redis.js";

describe("the local Upstash-compatible server", () => {
  let server: UpstashLocalServer;
  const redis = directRedis();
  const prefix = uniquePrefix("rest");
  const TOKEN = "local-token";
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body), headers: { Authorization: `Bearer ${TOKEN}`, ...headers } });

  beforeAll(async () => {
    server = await startUpstashLocal({ redisUrl: redisUrl(), token: TOKEN });
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
    const res = await post("/", ["NOPE"]);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/unknown command/i);
    const bad = await fetch(`${server.url}/`, { method: "POST", body: "not json", headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatch(/JSON array/);
  });

  it("runs a pipeline, each command with its own result or error", async () => {
    const res = await post("/pipeline", [["SET", `${prefix}c`, "1"], ["INCR", `${prefix}c`], ["NOPE"], ["GET", `${prefix}c`]]);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body[0]).toEqual({ result: "OK" });
    expect(body[1]).toEqual({ result: 2 });
    expect(body[2].error).toMatch(/unknown command/i);
    expect(body[3]).toEqual({ result: "2" });
  });

  it("runs multi-exec as one transaction", async () => {
    const res = await post("/multi-exec", [["INCR", `${prefix}d`], ["INCR", `${prefix}d`]]);
    expect(await res.json()).toEqual([{ result: 1 }, { result: 2 }]);
  });

  it("takes commands in the path, for curl", async () => {
    await redis.set(`${prefix}e`, "v");
    const res = await fetch(`${server.url}/get/${encodeURIComponent(`${prefix}e`)}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(await res.json()).toEqual({ result: "v" });
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
      const tq = createTickq({ redis: upstashAdapter(upstashClient(own.url, TOKEN)), prefix: `${prefix}trips:`, jobs: { noop: () => {} } });
      await tq.enqueueBulk(Array.from({ length: 250 }, () => ({ name: "noop", args: [] })));
      await tq.tick(); // warm the script cache
      await tq.enqueueBulk(Array.from({ length: 250 }, () => ({ name: "noop", args: [] })));
      const before = own.requests();
      const report = await tq.tick({ batch: 100 });
      expect(report.succeeded).toBe(250);
      expect(report.roundTrips).toBe(own.requests() - before);
      expect(report.roundTrips).toBe(4); // begin (fetch 100), step, step (fetch the last 50), finish
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
