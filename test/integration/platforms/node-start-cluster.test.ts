// `npm start` (the Node entry) on a private Redis Cluster of three masters:
// REDIS_URL names the nodes, comma-separated, REDIS_CLUSTER=1 says it is a
// cluster, and TICKQ_PARTITIONS ("auto", or unset: auto on a cluster with an
// untagged prefix, as the CLI reads it) spreads the keys over the masters;
// the server's own ticks run what it is sent.
import { spawn } from "node:child_process";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../src/platforms/node/find-redis.js";
import { startPrivateCluster, type PrivateCluster } from "../../helpers/private-cluster.js";

const SECRET = "start-cluster-secret-0123456789";

let cluster: PrivateCluster;
let client: Cluster;

beforeAll(async () => {
  cluster = await startPrivateCluster();
  client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 2 } });
  client.on("error", () => {});
}, 60_000);

afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});

describe("npm start on a Redis Cluster", () => {
  it.each([
    { partitions: "auto", prefix: "start-auto:" },
    { partitions: undefined, prefix: "start-default:" },
  ])(
    "TICKQ_PARTITIONS=$partitions spreads the keys over the three masters and runs the jobs",
    async ({ partitions, prefix }) => {
      const port = await freePort();
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? "",
        REDIS_URL: cluster.nodes.map(({ host, port }) => `redis://${host}:${port}`).join(","),
        REDIS_CLUSTER: "1",
        TICKQ_SECRET: SECRET,
        TICKQ_PREFIX: prefix,
        PORT: String(port),
        ...(partitions ? { TICKQ_PARTITIONS: partitions } : {}),
      };
      const child = spawn("node_modules/.bin/tsx", ["src/cli/dev/start.ts"], { env });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk));
      child.stderr.on("data", (chunk: Buffer) => (out += chunk));
      const call = (path: string, body?: unknown) =>
        fetch(`http://127.0.0.1:${port}${path}`, {
          method: body === undefined ? "GET" : "POST",
          headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      try {
        for (let i = 0; i < 300 && !/listening on/.test(out) && child.exitCode === null; i++)
          await new Promise((r) => setTimeout(r, 50));
        expect(out).toMatch(/listening on .*\(Redis: redis:\/\/127\.0\.0\.1:\d+,redis:/);
        const sent = await call(
          "/jobs",
          Array.from({ length: 12 }, (_, n) => ({ name: "sendWelcomeEmail", args: [`u${n}@example.com`] })),
        );
        expect(sent.status).toBe(201);
        expect(await client.get(`${prefix}partitions`)).toBe("3");
        const masters = client.nodes("master");
        const held = await Promise.all(masters.map((node) => node.keys(`${prefix}{*`)));
        expect(held.map((keys) => keys.length > 0)).toEqual([true, true, true]);
        let processed = 0;
        for (let i = 0; i < 100 && processed < 12; i++) {
          await new Promise((r) => setTimeout(r, 200));
          processed = ((await (await call("/stats")).json()) as { processed: number }).processed;
        }
        expect(processed).toBe(12);
      } finally {
        child.kill("SIGTERM");
      }
    },
    60_000,
  );
});
