// After a restart the scripts hold exclusive work for a lease (src/lua/lib/tick/restart-hold.lua); when
// the restart also forgot the prefix's record, the hold runs from the server's start, if that server
// loaded anything from disk. A Redis with its AOF on, on its very first start, loaded nothing: it holds
// nothing, so a new deployment's first ordered jobs and workflow runs start at once (they waited 30 s).
// Restarted from that AOF with the record forgotten, it holds from its start.
// Private Redis with appendonly on its own port, stopped by PID.
import { Redis } from "ioredis";
import { afterEach, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../../../bench/chaos/private-redis.js";
import { createTickq, type JobLogger } from "../../../src/index.js";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";

const quiet: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };
const PREFIX = "first-start:";

let server: PrivateRedis | undefined;
const clients: Redis[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  await server?.stop();
});

function tickqOver(url: string, ran: string[]) {
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  clients.push(redis);
  return createTickq({
    redis: ioredisAdapter(redis),
    prefix: PREFIX,
    jobs: {},
    ordered: { sync: { perform: async (id: string) => void ran.push(`ordered ${id}`) } },
    workflows: { onboard: { run: async () => void ran.push("workflow") } },
    logger: quiet,
  });
}

it("runs ordered jobs and workflow runs at once on a new AOF Redis, and holds them after a restart that forgot its record", async () => {
  server = await startPrivateRedis({ appendfsync: "everysec" });
  const ran: string[] = [];
  const first = tickqOver(server.url, ran);
  await first.enqueueOrdered("sync", { id: "a", payload: 1 });
  await first.workflows.start("onboard", { id: "w1", input: {} });
  await first.tick({ budgetMs: 2_000 });
  expect(ran.sort()).toEqual(["ordered a", "workflow"]);

  // The record of the Redis it ran on, forgotten as a rollback would; in the AOF before the kill (everysec).
  await clients[0]!.del(`${PREFIX}boot`);
  await new Promise((r) => setTimeout(r, 1_500));
  await server.restart();
  ran.length = 0;
  const again = tickqOver(server.url, ran);
  await again.enqueueOrdered("sync", { id: "b", payload: 2 });
  await again.tick({ budgetMs: 2_000 });
  expect(ran).toEqual([]);
  const boot = await clients[1]!.hgetall(`${PREFIX}boot`);
  const [seconds, micros] = (await clients[1]!.time()).map(Number) as [number, number];
  const now = seconds * 1_000 + Math.floor(micros / 1_000);
  expect(Number(boot.at)).toBeLessThanOrEqual(now); // from the server's start, not from when it was noticed
  expect(Number(boot.at) + Number(boot.lease)).toBeGreaterThan(now);
}, 30_000);
