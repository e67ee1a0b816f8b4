// A Redis Cluster of the test's own: three `redis-server --cluster-enabled
// yes` masters (no replicas) on free ports below 55535 (each needs its port
// and port + 10000 for the cluster bus), each in a temporary folder, joined
// by `redis-cli --cluster create`. stop() ends each server by its PID and
// removes the folders; an exit hook does the same if the run dies first.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface PrivateCluster {
  nodes: { host: string; port: number }[];
  stop(): Promise<void>;
}

const listens = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

async function freeClusterPort(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await listens(port)) && (await listens(port + 10_000))) return port;
  }
  throw new Error("no free port pair for a cluster node");
}

async function clusterOk(port: number): Promise<boolean> {
  const client = new Redis({
    port,
    host: "127.0.0.1",
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return /cluster_state:ok/.test(String(await client.call("CLUSTER", "INFO")));
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const taken = new Set<number>();
  const servers: { port: number; dir: string; child: ChildProcess }[] = [];
  const atExit = () => {
    for (const s of servers) {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
      rmSync(s.dir, { recursive: true, force: true });
    }
  };
  process.on("exit", atExit);
  const stop = async () => {
    await Promise.all(
      servers.map(async (s) => {
        if (s.child.exitCode === null && s.child.signalCode === null) {
          const exited = new Promise<void>((resolve) => s.child.once("exit", () => resolve()));
          s.child.kill("SIGTERM");
          const timer = setTimeout(() => s.child.kill("SIGKILL"), 5_000);
          await exited;
          clearTimeout(timer);
        }
        rmSync(s.dir, { recursive: true, force: true });
      }),
    );
    process.off("exit", atExit);
  };
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freeClusterPort(taken);
      taken.add(port).add(port + 10_000);
      const dir = mkdtempSync(join(tmpdir(), "tickq-cluster-"));
      const args = [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        "nodes.conf",
        "--save",
        "",
        "--appendonly",
        "no",
      ];
      const child = spawn("redis-server", args, { stdio: "ignore" });
      servers.push({ port, dir, child });
      await new Promise<void>((resolve, reject) => {
        child.once("error", reject);
        child.once("spawn", resolve);
      });
    }
    for (const { port } of servers) {
      for (let i = 0; i < 200; i++) {
        const client = new Redis({
          port,
          host: "127.0.0.1",
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        client.on("error", () => {});
        const up = await client.connect().then(
          () => client.ping(),
          () => undefined,
        );
        client.disconnect();
        if (up === "PONG") break;
        await sleep(25);
      }
    }
    const create = spawnSync(
      "redis-cli",
      ["--cluster", "create", ...servers.map((s) => `127.0.0.1:${s.port}`), "--cluster-replicas", "0", "--cluster-yes"],
      { encoding: "utf8", timeout: 30_000 },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stderr || create.stdout}`);
    for (let i = 0; i < 200 && !(await Promise.all(servers.map((s) => clusterOk(s.port)))).every(Boolean); i++)
      await sleep(50);
    if (!(await Promise.all(servers.map((s) => clusterOk(s.port)))).every(Boolean))
      throw new Error("the private cluster never reached cluster_state:ok");
    return { nodes: servers.map((s) => ({ host: "127.0.0.1", port: s.port })), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
