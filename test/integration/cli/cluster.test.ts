// The real CLI (bundled, run as a child process) against a private Redis
// Cluster of three masters: `--cluster` (or REDIS_CLUSTER=1) with REDIS_URL
// naming one seed or several; `partitions migrate --partitions auto` moves a
// one-slot layout into the partitions found from the cluster's shape; then
// `stats`, `jobs list`, `jobs show` and `jobs retry` read and change all
// partitions with no --partitions (the stored count); a wrong count is refused
// naming the stored one; a cluster node without --cluster is named as one.
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { slotOf } from "../../../src/partitions/layout.js";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { buildCli, type Cli } from "../../helpers/cli.js";
import { startPrivateCluster, type PrivateCluster } from "../../helpers/private-cluster.js";

const QUIET = { info: () => {}, warn: () => {}, error: () => {} };

let cluster: PrivateCluster;
let client: Cluster;
let cli: Cli;
let seeds: string[];

beforeAll(async () => {
  [cluster, cli] = await Promise.all([startPrivateCluster(), buildCli({})]);
  client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 2 } });
  client.on("error", () => {});
  seeds = cluster.nodes.map(({ host, port }) => `redis://${host}:${port}`);
}, 60_000);

afterAll(async () => {
  client?.disconnect();
  cli?.dispose();
  await cluster?.stop();
});

describe("the tickq CLI on a Redis Cluster", () => {
  it("migrates a one-slot layout into the partitions found from the cluster, then reads and retries across them", async () => {
    const jobs = { boom: { retry: 0, perform: () => Promise.reject(new Error("boom")) }, step: () => {} };
    const old = createTickq({ redis: ioredisAdapter(client), prefix: "{tq}:", jobs, logger: QUIET });
    await old.enqueueBulk(Array.from({ length: 5 }, (_, n) => ({ name: "boom" as const, args: [n] })));
    await old.tick({ budgetMs: 2_000 });
    await old.enqueueBulk(Array.from({ length: 7 }, (_, n) => ({ name: "step" as const, args: [n] })));
    const env = { REDIS_URL: seeds[0]! };

    // One seed, --cluster: the count comes from the three masters.
    const migrated = await cli.json<{ partitions: number; moved: Record<string, number>; left: string[] }>(
      ["--cluster", "partitions", "migrate", "--partitions", "auto", "--prefix", "tq:", "--from", "{tq}:"],
      env,
    );
    expect(migrated).toEqual({
      code: 0,
      body: {
        partitions: 3,
        fromPartitions: 1,
        moved: { dead: 5, retry: 0, scheduled: 0, queued: 7, orderedDead: 0 },
        stayed: 0,
        left: [],
      },
    });
    expect(await client.get("tq:partitions")).toBe("3");

    // Several seeds and REDIS_CLUSTER=1, no --partitions: the stored count.
    const all = { REDIS_URL: seeds.join(","), REDIS_CLUSTER: "1" };
    const stats = await cli.json<{ dead: number; scheduled: number }>(["stats", "--prefix", "tq:"], all);
    expect(stats).toMatchObject({ code: 0, body: { dead: 5, scheduled: 7 } });
    const dead = await cli.json<{ jobs: { jid: string; state: string }[] }>(
      ["jobs", "list", "dead", "--prefix", "tq:", "--limit", "100"],
      all,
    );
    expect(dead.body.jobs).toHaveLength(5);
    const jid = dead.body.jobs[0]!.jid;
    const shown = await cli.json<{ state: string }>(["jobs", "show", jid, "--prefix", "tq:"], all);
    expect(shown.body.state).toBe("dead");
    const retried = await cli.run(["jobs", "retry", jid, "--prefix", "tq:"], all);
    expect(retried.code).toBe(0);
    const after = await cli.json<{ dead: number; queues: Record<string, number> }>(
      ["stats", "--prefix", "tq:", "--partitions", "3"],
      all,
    );
    expect(after.body.dead).toBe(4);
    expect(after.body.queues.default).toBe(1);

    // A wrong count is refused, naming the stored one.
    const wrong = await cli.run(["stats", "--prefix", "tq:", "--partitions", "2"], all);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/laid out in 3 partitions.*Use partitions: 3/);
    // The one-slot layout still reads as one partition (a prefix with a hash tag).
    const oldStats = await cli.json<{ dead: number }>(["stats", "--prefix", "{tq}:"], all);
    expect(oldStats).toMatchObject({ code: 0, body: { dead: 0 } });
  }, 90_000);

  it("names the fix when REDIS_URL is a cluster node and --cluster is missing (a key elsewhere, keys across slots), or several nodes are given without it", async () => {
    // A prefix whose slot another master serves: the seed answers MOVED.
    await client.get("warm");
    const seed = `${cluster.nodes[0]!.host}:${cluster.nodes[0]!.port}`;
    const tag = Array.from({ length: 100 }, (_, n) => `t${n}`).find(
      (t) => client.slots[slotOf(`{${t}}`)]?.[0] !== seed,
    );
    const refused = await cli.run(["stats", "--prefix", `{${tag}}:`], { REDIS_URL: seeds[0]! });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /^tickq: Redis at \S+ is a Redis Cluster node: add --cluster \(or REDIS_CLUSTER=1\)\n$/,
    );
    // An untagged prefix: the keys of one call span slots, and the node answers CROSSSLOT.
    const untagged = await cli.run(["stats", "--prefix", "tq:"], { REDIS_URL: seeds[0]! });
    expect(untagged.code).not.toBe(0);
    expect(untagged.stderr).toMatch(
      /^tickq: Redis at \S+ is a Redis Cluster node: add --cluster \(or REDIS_CLUSTER=1\)\n$/,
    );
    const several = await cli.run(["stats"], { REDIS_URL: seeds.join(",") });
    expect(several.code).toBe(2);
    expect(several.stderr).toMatch(/names 3 nodes.*--cluster/);
  }, 30_000);
});
