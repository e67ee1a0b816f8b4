// The local REST server's edges: a body over 10 MiB is refused as it streams
// in, chunked or not; only loopback Host values are served (a page that
// rebinds its DNS to 127.0.0.1 sends its own name); a short token is refused
// at start unless asked for.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstashLocal, type UpstashLocalServer } from "../../../tools/upstash-local/server.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";

const TOKEN = "rest-limits-token-0123";

/** One raw HTTP request; `chunks` are written with Transfer-Encoding: chunked. */
function raw(
  url: string,
  options: { host?: string; chunks?: Iterable<string>; body?: string },
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
    if (options.host !== undefined) headers.Host = options.host;
    const req = request({ hostname, port, path: "/", method: "POST", headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    if (options.chunks) {
      req.setHeader("Transfer-Encoding", "chunked");
      const chunks = options.chunks[Symbol.iterator]();
      let answered = false;
      const pump = () => {
        for (;;) {
          const next = chunks.next();
          if (next.done || answered) return req.end();
          if (!req.write(next.value)) return req.once("drain", pump);
        }
      };
      req.on("response", () => (answered = true));
      pump();
    } else {
      req.end(options.body ?? "");
    }
  });
}

describe("the local REST server's limits", () => {
  let server: UpstashLocalServer;
  const redis = directRedis();
  const prefix = uniquePrefix("rest-limits");

  beforeAll(async () => {
    server = await startUpstashLocal({ redisUrl: redisUrl(), token: TOKEN });
  });
  afterAll(async () => {
    await server.close();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("refuses a 30 MB chunked body with 413 before running it", async () => {
    const key = `${prefix}big`;
    function* body() {
      yield `["SET","${key}","`;
      for (let i = 0; i < 30; i++) yield "x".repeat(1024 * 1024);
      yield `"]`;
    }
    const res = await raw(server.url, { chunks: body() });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ error: "ERR the body is over 10 MiB" });
    expect(await redis.exists(key)).toBe(0);
  });

  it("still runs a chunked body under the limit", async () => {
    const key = `${prefix}small`;
    const res = await raw(server.url, { chunks: [`["SET","${key}",`, `"${"y".repeat(100_000)}"]`] });
    expect(res.status).toBe(200);
    expect(await redis.strlen(key)).toBe(100_000);
  });

  it.each([
    "evil.example",
    "evil.example:8079",
    "127.0.0.1.nip.io",
    "localhost.evil.example",
    "10.0.0.1",
    "[::2]",
    "127.0.0.256",
  ])("refuses Host %j with 403, and runs nothing", async (host) => {
    const key = `${prefix}rebind:${host}`;
    const res = await raw(server.url, { host, body: JSON.stringify(["SET", key, "1"]) });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).error).toMatch(/only a loopback Host/);
    expect(await redis.exists(key)).toBe(0);
  });

  it.each([
    "localhost",
    "LOCALHOST:8079",
    "127.0.0.1",
    "127.0.0.1:8079",
    "127.1.2.3",
    "[::1]",
    "[::1]:8079",
    "app.localhost",
  ])("serves Host %j", async (host) => {
    const res = await raw(server.url, { host, body: JSON.stringify(["PING"]) });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ result: "PONG" });
  });

  it("refuses a token under 16 characters at start, naming the way out, unless insecureToken", async () => {
    await expect(startUpstashLocal({ redisUrl: redisUrl(), token: "dev" })).rejects.toThrow(
      /token is 3 characters, under 16.*--insecure-token/,
    );
    await expect(startUpstashLocal({ redisUrl: redisUrl(), token: "" })).rejects.toThrow(/token is missing/);
    const insecure = await startUpstashLocal({ redisUrl: redisUrl(), token: "dev", insecureToken: true });
    try {
      const res = await fetch(`${insecure.url}/`, {
        method: "POST",
        body: '["PING"]',
        headers: { Authorization: "Bearer dev" },
      });
      expect(await res.json()).toEqual({ result: "PONG" });
    } finally {
      await insecure.close();
    }
  });
});
