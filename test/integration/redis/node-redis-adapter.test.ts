// node-redis (`redis` v5) where it differs from tickq's other clients: when a
// connection breaks after a call was written, node-redis rejects the call
// (its script may have run) and never sends it again, where ioredis resends
// it; so nodeRedisAdapter resends it itself, a bounded number of times, and
// tickq's replay-safe scripts make that harmless. A RESP3 client answers as
// a RESP2 one; a Redis that is down gives tickq's clear timeout error and no
// password; a closed client, a value that is no client and bad options are
// refused with the fix named.
import { createHash } from "node:crypto";
import { createClient, RESP_TYPES } from "redis";
import { afterAll, afterEach, expect, it } from "vitest";
import { startDropProxy } from "../../../bench/chaos/drop-proxy.js";
import { createTickq, TickqError } from "../../../src/index.js";
import { runScript } from "../../../src/redis/adapter.js";
import { type NodeRedisClient, nodeRedisAdapter } from "../../../src/redis/node-redis.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { deleteUnder, directRedis, redisUrl, sleep, uniquePrefix } from "../../helpers/redis.js";

const probe = (text: string) => ({ name: "probe", text, sha: createHash("sha1").update(text).digest("hex") });
const COUNT_RUN = probe("return redis.call('INCR', KEYS[1])");

describeOverAdapters(
  adapterCases.filter((c) => c.name === "node-redis"),
  "$name, where it differs from the other clients",
  () => {
    const redis = directRedis();
    const prefix = uniquePrefix("node-redis");
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
      await deleteUnder(redis, prefix);
    });
    afterAll(() => redis.disconnect());

    /** A connected client through a proxy that can drop the reply to the next script call. */
    async function throughDropProxy() {
      const target = new URL(redisUrl());
      const proxy = await startDropProxy(Number(target.port || 6379), target.hostname);
      const client = createClient({ url: proxy.url });
      client.on("error", () => {});
      await client.connect();
      cleanups.push(async () => {
        if (client.isOpen) client.destroy();
        await proxy.close();
      });
      await redis.script("LOAD", COUNT_RUN.text); // so the dropped call is the EVALSHA that runs it

      return { client, proxy };
    }

    it("node-redis itself rejects a call whose reply was lost, having run its script once: it sends nothing twice", async () => {
      const { client, proxy } = await throughDropProxy();
      const adapter = nodeRedisAdapter(client, { retries: 0 });
      const key = `${prefix}runs`;
      const dropped = proxy.dropNextReply(10_000);
      const error = await runScript(adapter, COUNT_RUN, [key], [], { count: 0 }, 5_000).catch((e: unknown) => e);
      expect(await dropped).toBe(true);
      expect(error).toBeInstanceOf(TickqError);
      expect((error as Error).message).toMatch(/Redis call failed \(script probe\): Socket closed unexpectedly/);
      await sleep(300); // a resend, had node-redis made one, would have reached Redis by now
      expect(await redis.get(key)).toBe("1");
      // the client reconnects by itself: the next call goes through
      expect(await runScript(adapter, COUNT_RUN, [key], [], { count: 0 }, 5_000)).toBe(2);
    });

    it("the adapter resends that call after the reconnect: it answers, and the script ran twice (why every tickq script is replay-safe)", async () => {
      const { client, proxy } = await throughDropProxy();
      const adapter = nodeRedisAdapter(client);
      const key = `${prefix}runs`;
      const dropped = proxy.dropNextReply(10_000);
      expect(await runScript(adapter, COUNT_RUN, [key], [], { count: 0 }, 5_000)).toBe(2);
      expect(await dropped).toBe(true);
      expect(await redis.get(key)).toBe("2");
    });

    it("a RESP3 client, and one mapping strings to Buffers, answer every reply shape as a RESP2 client does", async () => {
      const clients = [createClient({ url: redisUrl() }), createClient({ url: redisUrl(), RESP: 3 })];
      for (const c of clients) {
        c.on("error", () => {});
        await c.connect();
        cleanups.push(async () => c.destroy());
      }
      const buffers = clients[0]!.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
      const texts = [
        "return true",
        "return false",
        "return 3.9",
        "return {1, {2, {'x'}}, {}, 'y'}",
        "return redis.status_reply('OK')",
        "return {'123', '{\"a\":1}', 'héllo ✓'}",
      ];
      const [resp2, resp3, mapped] = await Promise.all(
        [...clients, buffers].map((c) =>
          Promise.all(texts.map((t) => runScript(nodeRedisAdapter(c), probe(t), [], [], { count: 0 }, 5_000))),
        ),
      );
      expect(resp2).toEqual([1, null, 3, [1, [2, ["x"]], [], "y"], "OK", ["123", '{"a":1}', "héllo ✓"]]);
      expect(resp3).toEqual(resp2);
      expect(mapped).toEqual(resp2);
    });

    it("a client never connected, or closed, is refused with the fix named", async () => {
      const client = createClient({ url: redisUrl() });
      const tq = createTickq({ redis: nodeRedisAdapter(client), prefix, jobs: { x: () => {} } });
      for (const call of [() => tq.enqueue("x", []), () => tq.stats()]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TickqError);
        expect((error as Error).message).toMatch(
          /The node-redis client is closed: call `await client.connect\(\)` before tickq uses it/,
        );
      }
    });

    it("a Redis that is down rejects with tickq's clear error, never the URL's password", async () => {
      const client = createClient({ url: "redis://tickq:s3cret-pw@127.0.0.1:1" });
      client.on("error", () => {});
      client.connect().catch(() => {});
      cleanups.push(async () => void (client.isOpen && client.destroy()));
      const tq = createTickq({ redis: nodeRedisAdapter(client), prefix, jobs: { x: () => {} }, redisTimeoutMs: 1_000 });
      for (const call of [() => tq.enqueue("x", []), () => tq.tick()]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TickqError);
        expect((error as Error).message).toMatch(
          /Redis did not answer within 1000 ms \(script \w+\); is it reachable\? Check .* \(REDIS_URL.*redisTimeoutMs/,
        );
        expect(String((error as Error).stack) + JSON.stringify(error)).not.toContain("s3cret-pw");
      }
    });

    it("refuses a value that is no node-redis client, and retries that are not a whole number ≥ 0", () => {
      const client = createClient({ url: redisUrl() });
      for (const make of [
        () => nodeRedisAdapter({} as NodeRedisClient),
        () => nodeRedisAdapter(client, { retries: -1 }),
        () => nodeRedisAdapter(client, { retries: 1.5 }),
      ]) {
        expect(make).toThrow(TickqError);
      }
      expect(() => nodeRedisAdapter({} as NodeRedisClient)).toThrow(/createClient\(\) or createCluster\(\)/);
      expect(() => nodeRedisAdapter(client, { retries: -1 })).toThrow(/retries must be a whole number ≥ 0, not -1/);
    });

    it("a standalone client says it is no cluster and offers WAIT, so durability can be asked of it", () => {
      const adapter = nodeRedisAdapter(createClient({ url: redisUrl() }));
      expect(adapter.cluster).toBe(false);
      expect(typeof adapter.wait).toBe("function");
      expect(() => createTickq({ redis: adapter, jobs: {}, durability: { replicas: 1 } })).not.toThrow();
    });
  },
);
