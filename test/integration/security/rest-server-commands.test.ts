// The local REST server runs tickq's scripts and data commands only: a token
// holder cannot flush, reconfigure, stop or re-point the Redis behind it, nor
// read its password. Over a private redis-server, since a command that slipped
// through could flush or stop the Redis it runs on.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upstashAdapter } from "../../../src/redis/upstash.js";
import { startUpstashLocal, type UpstashLocalServer } from "../../../tools/upstash-local/server.js";
import { createTickq } from "../../../src/index.js";
import * as protocol from "../../../src/protocol/index.js";
import { evalWords } from "../../helpers/tick-calls.js";
import { upstashClient } from "../../helpers/open-adapter.js";
import { startPrivateRedis, type PrivateRedis } from "../../helpers/private-redis.js";

const PAUSED = { paused: "paused" };

const TOKEN = "rest-commands-token-0123";

describe("the local REST server's command allowlist", () => {
  let redisServer: PrivateRedis;
  let redis: Redis;
  let server: UpstashLocalServer;
  const call = (path: string, body?: unknown, method = "POST") =>
    fetch(`${server.url}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { Authorization: `Bearer ${TOKEN}` },
      signal: AbortSignal.timeout(5_000),
    });

  beforeAll(async () => {
    redisServer = await startPrivateRedis();
    redis = new Redis(redisServer.url);
    await redis.config("SET", "requirepass", "the-password-behind-it");
    await redis.auth("the-password-behind-it");
    const withPassword = redisServer.url.replace("redis://", "redis://:the-password-behind-it@");
    server = await startUpstashLocal({ redisUrl: withPassword, token: TOKEN });
  });
  afterAll(async () => {
    await server?.close();
    redis?.disconnect();
    await redisServer?.stop();
  });

  const refused: [string, (string | number)[]][] = [
    ["FLUSHALL", ["FLUSHALL"]],
    ["FLUSHDB", ["flushdb", "ASYNC"]],
    ["CONFIG", ["CONFIG", "GET", "requirepass"]],
    ["CONFIG", ["CONFIG", "SET", "maxmemory", "1"]],
    ["SHUTDOWN", ["SHUTDOWN", "NOSAVE"]],
    ["REPLICAOF", ["REPLICAOF", "127.0.0.1", "1"]],
    ["SLAVEOF", ["SLAVEOF", "127.0.0.1", "1"]],
    ["DEBUG", ["DEBUG", "SLEEP", "0"]],
    ["ACL", ["ACL", "LIST"]],
    ["MODULE", ["MODULE", "LIST"]],
    ["CLIENT KILL", ["CLIENT", "KILL", "TYPE", "normal"]],
    ["CLIENT LIST", ["CLIENT", "LIST"]],
    ["SCRIPT FLUSH", ["SCRIPT", "FLUSH"]],
    ["FUNCTION", ["FUNCTION", "FLUSH"]],
    ["SAVE", ["SAVE"]],
    ["BGREWRITEAOF", ["BGREWRITEAOF"]],
    ["MIGRATE", ["MIGRATE", "127.0.0.1", "1", "k", "0", "100"]],
    ["NOPE", ["NOPE"]],
  ];

  it.each(refused)(
    "refuses %s from POST /, /pipeline, /multi-exec and the path form, and Redis is untouched",
    async (shown, command) => {
      await redis.set("canary", "still here");
      const one = await call("/", command);
      expect(one.status).toBe(400);
      const { error } = await one.json();
      expect(error).toContain(`ERR ${shown} is refused by the local REST server`);
      expect(error).toMatch(/only runs tickq's scripts \(EVAL, EVALSHA\) and data commands/);
      expect(error).not.toContain("the-password-behind-it");
      for (const path of ["/pipeline", "/multi-exec"]) {
        const res = await call(path, [["SET", "ran", "1"], command]);
        expect(res.status).toBe(400);
        expect((await res.json()).error).toMatch(/command 2 of 2; nothing ran/);
      }
      for (const method of ["GET", "POST"]) {
        const res = await call(`/${command.map((w) => encodeURIComponent(String(w))).join("/")}`, undefined, method);
        expect(res.status).toBe(400);
        expect((await res.json()).error).toContain(`ERR ${shown} is refused`);
      }
      expect(await redis.get("canary")).toBe("still here");
      expect(await redis.get("ran")).toBeNull();
      expect(await redis.config("GET", "maxmemory")).toEqual(["maxmemory", "0"]);
      expect((await redis.info("replication")).includes("role:master")).toBe(true);
    },
  );

  it("runs tickq's scripts and data commands", async () => {
    expect(await (await call("/", ["SET", "k", "v"])).json()).toEqual({ result: "OK" });
    expect(
      await (await call("/", evalWords(protocol.pause, PAUSED, { queue: "q", paused: true }, { prefix: "p:" }))).json(),
    ).toEqual({
      result: 1,
    });
    const loaded = await (await call("/", ["SCRIPT", "LOAD", protocol.pause.script.text])).json();
    expect(
      await (
        await call(
          "/",
          evalWords(protocol.pause, PAUSED, { queue: "q", paused: false }, { prefix: "p:", sha: loaded.result }),
        )
      ).json(),
    ).toEqual({
      result: 0,
    });
    expect(await (await call("/", ["SCRIPT", "EXISTS", loaded.result])).json()).toEqual({ result: [1] });
    const tq = createTickq({
      redis: upstashAdapter(upstashClient(server.url, TOKEN)),
      prefix: "allow:",
      jobs: { noop: () => {} },
    });
    await tq.enqueue("noop", []);
    expect((await tq.tick()).succeeded).toBe(1);
  });
});
