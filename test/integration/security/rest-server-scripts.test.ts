// The local REST server runs only the Lua scripts tickq ships: a script may
// call FLUSHALL or SWAPDB, so a token holder's own script would get past the
// command allowlist. Over a private redis-server, since a script that slipped
// through would flush the Redis it runs on.
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startUpstashLocal, type UpstashLocalServer } from "../../../tools/upstash-local/server.js";
import * as protocol from "../../../src/protocol/index.js";
import { evalWords } from "../../helpers/tick-calls.js";
import { startPrivateRedis, type PrivateRedis } from "../../helpers/private-redis.js";

const PAUSED = { paused: "paused" };

const TOKEN = "rest-scripts-token-0123";
const FLUSH = "return redis.call('FLUSHALL')";
const SWAP = "return redis.call('SWAPDB', 0, 1)";

describe("the local REST server's scripts", () => {
  let redisServer: PrivateRedis;
  let redis: Redis;
  let server: UpstashLocalServer;
  let anyScript: UpstashLocalServer;
  const call = (on: UpstashLocalServer, path: string, body: unknown) =>
    fetch(`${on.url}${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { Authorization: `Bearer ${TOKEN}` },
      signal: AbortSignal.timeout(5_000),
    });

  beforeAll(async () => {
    redisServer = await startPrivateRedis();
    redis = new Redis(redisServer.url);
    server = await startUpstashLocal({ redisUrl: redisServer.url, token: TOKEN });
    anyScript = await startUpstashLocal({ redisUrl: redisServer.url, token: TOKEN, anyScript: true });
  });
  afterAll(async () => {
    await server?.close();
    await anyScript?.close();
    redis?.disconnect();
    await redisServer?.stop();
  });
  beforeEach(async () => void (await redis.set("canary", "still here")));

  const own: [string, (string | number)[]][] = [
    ["EVAL", ["EVAL", FLUSH, 0]],
    ["EVAL", ["eval", SWAP, 0]],
    ["EVAL_RO", ["EVAL_RO", "return redis.call('GET', 'canary')", 0]],
    ["EVALSHA", ["EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", 0]],
    ["EVALSHA_RO", ["EVALSHA_RO", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", 0]],
    ["SCRIPT LOAD", ["SCRIPT", "load", FLUSH]],
  ];

  it.each(own)(
    "refuses a script tickq does not ship through %s, from POST /, /pipeline and /multi-exec",
    async (shown, command) => {
      const one = await call(server, "/", command);
      expect(one.status).toBe(400);
      expect((await one.json()).error).toContain(
        `ERR ${shown} is refused by the local REST server: it runs only the Lua scripts tickq ships`,
      );
      for (const path of ["/pipeline", "/multi-exec"]) {
        const res = await call(server, path, [["SET", "ran", "1"], command]);
        expect(res.status).toBe(400);
        expect((await res.json()).error).toMatch(/command 2 of 2; nothing ran/);
      }
      expect(await redis.get("canary")).toBe("still here");
      expect(await redis.get("ran")).toBeNull();
    },
  );

  it("refuses a script tickq does not ship even once Redis has it cached under its SHA", async () => {
    const sha = await redis.script("LOAD", FLUSH);
    expect((await call(server, "/", ["EVALSHA", sha as string, 0])).status).toBe(400);
    expect(await redis.get("canary")).toBe("still here");
  });

  it("runs every script tickq ships, by text and by SHA", async () => {
    for (const script of Object.values(protocol).map((c) => c.script)) {
      const loaded = await call(server, "/", ["SCRIPT", "LOAD", script.text]);
      expect(loaded.status, script.name).toBe(200);
      const { result: sha } = await loaded.json();
      expect((await (await call(server, "/", ["SCRIPT", "EXISTS", sha])).json()).result).toEqual([1]);
    }
    expect(
      await (
        await call(server, "/pipeline", [
          evalWords(protocol.pause, PAUSED, { queue: "q", paused: true }, { prefix: "p:" }),
        ])
      ).json(),
    ).toEqual([{ result: 1 }]);
  });

  it("runs any script when started with anyScript", async () => {
    expect(await (await call(anyScript, "/", ["EVAL", "return redis.call('GET', 'canary')", 0])).json()).toEqual({
      result: "still here",
    });
  });
});
