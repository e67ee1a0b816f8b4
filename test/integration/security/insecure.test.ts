// TICKQ_INSECURE=1 on the Node server: only loopback hosts are served (a
// DNS-rebound name is refused, whether it comes in the Host header or an
// absolute-form request line), a request a browser marks as cross-site is
// refused, POST /jobs needs application/json, and startup warns loudly.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startServer, type RunningServer } from "../../../src/platforms/node/server.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";
import { rawRequest } from "./listeners.js";

describe("TICKQ_INSECURE on the Node server", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("sec-insecure");
  let server: RunningServer;
  let port: number;
  let warned = "";

  beforeAll(async () => {
    const spy = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      server = await startServer({
        redisUrl: redisUrl(),
        jobs: { hello: () => {} },
        prefix,
        port: 0,
        insecure: true,
        tickEveryMs: 0,
      });
      warned = spy.mock.calls.map((args) => args.join(" ")).join("\n");
    } finally {
      spy.mockRestore();
    }
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server?.close();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("warns loudly at start", () => {
    expect(warned).toMatch(/!!! tickq: TICKQ_INSECURE is on/);
  });

  it("serves loopback hosts only", async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, "localhost"]) {
      expect(await rawRequest(port, `GET /stats HTTP/1.1\r\nhost: ${host}`), host).toBe(200);
    }
    for (const host of [
      `rebind.attacker.example:${port}`,
      "attacker.example",
      `10.0.0.5:${port}`,
      `127.0.0.1.nip.io:${port}`,
    ]) {
      expect(await rawRequest(port, `GET /stats HTTP/1.1\r\nhost: ${host}`), host).toBe(403);
    }
    expect(await rawRequest(port, `GET http://attacker.example/stats HTTP/1.1\r\nhost: localhost:${port}`)).toBe(403);
  });

  it("refuses cross-site requests and non-JSON bodies, and changes nothing", async () => {
    const body = JSON.stringify({ name: "hello", args: [] });
    const local = `host: localhost:${port}`;
    expect(await rawRequest(port, `POST /jobs HTTP/1.1\r\n${local}\r\ncontent-type: text/plain`, body)).toBe(415);
    expect(
      await rawRequest(
        port,
        `POST /jobs HTTP/1.1\r\n${local}\r\ncontent-type: application/x-www-form-urlencoded`,
        body,
      ),
    ).toBe(415);
    expect(
      await rawRequest(port, `POST /queues/default/pause HTTP/1.1\r\n${local}\r\norigin: https://attacker.example`),
    ).toBe(403);
    expect(await rawRequest(port, `POST /tick HTTP/1.1\r\n${local}\r\nsec-fetch-site: cross-site`)).toBe(403);
    expect(await rawRequest(port, `POST /tick HTTP/1.1\r\n${local}\r\norigin: null`)).toBe(403);
    expect(await redis.exists(`${prefix}queue:default`, `${prefix}paused`)).toBe(0);
    expect(
      await rawRequest(
        port,
        `POST /jobs HTTP/1.1\r\n${local}\r\ncontent-type: application/json\r\norigin: http://localhost:${port}`,
        body,
      ),
    ).toBe(201);
    expect(await redis.llen(`${prefix}queue:default`)).toBe(1);
  });
});
