// The durability option: enqueue, a tick's calls and the jobs API return
// only once the asked number of replicas hold their writes (Redis WAIT),
// and fail with NOT_REPLICATED, writing nothing a retry would double,
// while they do not. A primary and a replica of the test's own; the
// replica is frozen (SIGSTOP) to stop replication.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReplicatedRedis, type ReplicatedRedis } from "../../../bench/chaos/replicated-redis.js";
import { TickqError } from "../../../src/errors.js";
import { createTickq } from "../../../src/index.js";
import { adapterCases, describeOverAdapters, speaksTcp } from "../../helpers/adapters.js";
import { openAdapter, type OpenedAdapter } from "../../helpers/open-adapter.js";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return error instanceof TickqError ? error.code : `not a TickqError: ${String(error)}`;
}

// The adapters that speak to Redis over TCP, on one connection that WAIT can follow.
describeOverAdapters(
  adapterCases.filter((c) => speaksTcp(c.name)),
  "durability over $name, a primary and a replica",
  (adapterCase) => {
    let servers: ReplicatedRedis;
    let primary: Redis;
    let replica: Redis;
    let opened: OpenedAdapter;
    beforeAll(async () => {
      servers = await startReplicatedRedis({ sentinel: false });
      primary = new Redis(servers.nodes[0].url, { maxRetriesPerRequest: 1 });
      replica = new Redis(servers.nodes[1].url, { maxRetriesPerRequest: 1 });
      opened = openAdapter(adapterCase.name, { redisUrl: servers.nodes[0].url, restUrl: "", restToken: "" });
    }, 30_000);
    afterAll(async () => {
      await opened?.close();
      primary?.disconnect();
      replica?.disconnect();
      await servers?.stop();
    });

    const make = (ran: string[]) =>
      createTickq({
        redis: opened.adapter,
        prefix: "dur:",
        logger: quiet,
        durability: { replicas: 1, timeoutMs: 200 },
        jobs: { note: ([text]: [string]) => void ran.push(text) },
      });

    it("returns once the replica holds the write, and fails NOT_REPLICATED while it cannot", async () => {
      const ran: string[] = [];
      const tq = make(ran);
      await tq.enqueue("note", ["first"], { jid: "j1" });
      expect(await replica.llen("dur:queue:default")).toBe(1);

      const frozen = servers.nodes[1].freeze(3_000);
      await new Promise((r) => setTimeout(r, 100));
      expect(await codeOf(tq.enqueue("note", ["second"], { jid: "j2" }))).toBe("NOT_REPLICATED");
      expect(await codeOf(tq.jobs.delete("j1"))).toBe("NOT_REPLICATED");
      expect(await codeOf(tq.tick({ budgetMs: 2_000, leaseMs: 1_000 }))).toBe("NOT_REPLICATED");
      await frozen;

      // the caller retries with the same jid: one job, not two
      await tq.enqueue("note", ["second"], { jid: "j2" });
      // the failed tick's job comes back once its lease has expired
      let succeeded = 0;
      for (let i = 0; i < 20 && succeeded === 0; i++) {
        succeeded += (await tq.tick({ budgetMs: 2_000 })).succeeded;
        if (succeeded === 0) await new Promise((r) => setTimeout(r, 250));
      }
      expect(ran).toEqual(["second"]); // j1 was deleted: unreplicated, but done on the primary
      expect(succeeded).toBe(1);
      expect(await replica.get("dur:stat:processed")).toBe("1");
      await primary.del(...(await primary.keys("dur:*")));
    }, 30_000);
  },
);

describeOverAdapters(
  adapterCases.filter((c) => !speaksTcp(c.name)),
  "durability over $name",
  (adapterCase) => {
    it("is refused at start: WAIT is not available over HTTP", async () => {
      const opened = adapterCase.open();
      const make = () => createTickq({ redis: opened.adapter, jobs: {}, durability: { replicas: 1 } });
      expect(make).toThrow(/durability needs an adapter that can run Redis WAIT/);
      await opened.close();
    });
  },
);

describe("durability options", () => {
  it("refuses replicas below 1 and a timeout that is not a whole number", async () => {
    const opened = adapterCases[0]!.open();
    expect(() => createTickq({ redis: opened.adapter, jobs: {}, durability: { replicas: 0 } })).toThrow(
      /durability.replicas must be an integer ≥ 1/,
    );
    expect(() => createTickq({ redis: opened.adapter, jobs: {}, durability: { replicas: 1, timeoutMs: 1.5 } })).toThrow(
      /durability.timeoutMs/,
    );
    await opened.close();
  });
});
