// A failover to a replica that loaded its master's RDB in the second the master saved it (a full sync that
// is not diskless: the master's BGSAVE and the replica's load both set LASTSAVE) leaves a Redis answering
// the same LASTSAVE under another run_id. Restart detection (src/lua/lib/tick/restart-hold.lua) trusts
// LASTSAVE once a check ran past its second (`sure`), and the replica carries that record: the failover
// goes unseen, so exclusive work is handed out at once over claims the failover may have lost, and leases
// taken on the master are not told they are lost. Two private redis-servers on their own ports, stopped by PID.
import { afterEach, expect, it } from "vitest";
import { Redis } from "ioredis";
import { createTickq } from "../../../src/index.js";
import { openAdapter } from "../../helpers/open-adapter.js";
import { startPrivateRedis, type PrivateRedis } from "../../helpers/private-redis.js";
import { sleep } from "../../helpers/redis.js";

const started: PrivateRedis[] = [];
const clients: Redis[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  for (const s of started.splice(0)) await s.stop();
});

const runId = async (r: Redis) => /run_id:(\w+)/.exec(await r.info("server"))![1]!;

/** A replica of `masterUrl` in sync, whose LASTSAVE is its master's (a few tries: the load may cross a second). */
async function replicaOfTheSameLastsave(master: Redis, masterUrl: string): Promise<{ url: string; admin: Redis }> {
  const port = new URL(masterUrl).port;
  for (let attempt = 0; attempt < 5; attempt++) {
    const server = await startPrivateRedis(["--replicaof", "127.0.0.1", port]);
    started.push(server);
    const admin = new Redis(server.url);
    clients.push(admin);
    while (!(await admin.info("replication")).includes("master_link_status:up")) await sleep(20);
    if (Number(await admin.lastsave()) === Number(await master.lastsave())) return { url: server.url, admin };
  }
  throw new Error("no replica loaded its master's RDB in the second the master saved it");
}

it("a failover to a replica answering its master's LASTSAVE holds ordered ids for a lease", async () => {
  const masterServer = await startPrivateRedis(["--repl-diskless-sync", "no"]);
  started.push(masterServer);
  const master = new Redis(masterServer.url);
  clients.push(master);
  const replica = await replicaOfTheSameLastsave(master, masterServer.url);
  const lastsave = Number(await master.lastsave());
  while (Date.now() < (lastsave + 1) * 1_000 + 50) await sleep(20);
  const prefix = "failover:";
  const ran: string[] = [];
  const ordered = { ordered: { perform: async (id: string) => void ran.push(id) } };
  const onMaster = openAdapter("ioredis", { redisUrl: masterServer.url, restUrl: "", restToken: "" });
  try {
    await createTickq({ redis: onMaster.adapter, prefix, jobs: {}, ordered }).tick({ budgetMs: 500, leaseMs: 1_000 });
    expect(await master.hget(`${prefix}boot`, "run")).toBe(await runId(master));
    await master.wait(1, 1_000);
  } finally {
    await onMaster.close();
  }
  await replica.admin.replicaof("NO", "ONE"); // the failover
  const onReplica = openAdapter("ioredis", { redisUrl: replica.url, restUrl: "", restToken: "" });
  try {
    const tq = createTickq({ redis: onReplica.adapter, prefix, jobs: {}, ordered });
    await tq.enqueueOrdered("ordered", { id: "a", payload: 1 });
    await tq.tick({ budgetMs: 500, leaseMs: 1_000 });
    expect(ran).toEqual([]); // held: the master may have handed out ids the replica never heard of
    expect(await replica.admin.hget(`${prefix}boot`, "run")).toBe(await runId(replica.admin));
  } finally {
    await onReplica.close();
  }
}, 60_000);
