// A primary, a replica and (optionally) a Sentinel watching them, each a
// process of its own on a free port with its own folder (AOF, appendfsync
// always, a log file). Free of vitest: the durability tests and the Sentinel chaos
// phase both start one. Every process is stopped by its PID; an exit hook
// kills them if the run dies first.
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { answers, freePort } from "../../src/platforms/node/find-redis.js";
import { durableRedisArgs } from "./private-redis.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const MASTER_NAME = "tickq-chaos";

export interface RedisNode {
  port: number;
  url: string;
  pid(): number | undefined;
  /** SIGKILL by PID. */
  kill(): Promise<void>;
  /** SIGSTOP for `ms`, then SIGCONT. */
  freeze(ms: number): Promise<void>;
  /** Starts it again on its port and folder, as a replica of `primaryPort` (given). */
  start(replicaOf?: number): Promise<void>;
}

export interface ReplicatedRedis {
  nodes: [RedisNode, RedisNode];
  /** The Sentinel's port; undefined without one. */
  sentinelPort: number | undefined;
  /** The port Sentinel names as the primary now. */
  primaryPort(): Promise<number>;
  /** Each node's log file, then the Sentinel's (undefined without one). */
  logs: { nodes: [string, string]; sentinel: string | undefined };
  stop(): Promise<void>;
}

async function startNode(dir: string, extra: string[]): Promise<RedisNode> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const node: RedisNode = {
    port,
    url,
    pid: () => child?.pid,
    async kill() {
      if (!alive()) return;
      const exited = new Promise<void>((resolve) => child!.once("exit", () => resolve()));
      process.kill(child!.pid!, "SIGCONT"); // a frozen process must wake to die
      child!.kill("SIGKILL");
      await exited;
    },
    async freeze(ms) {
      if (!alive()) return;
      process.kill(child!.pid!, "SIGSTOP");
      await sleep(ms);
      if (alive()) process.kill(child!.pid!, "SIGCONT");
    },
    async start(replicaOf) {
      const args = [...durableRedisArgs(port, dir), "--logfile", join(dir, "redis.log"), ...extra];
      if (replicaOf !== undefined) args.push("--replicaof", "127.0.0.1", String(replicaOf));
      child = spawn("redis-server", args, { stdio: "ignore" });
      child.on("error", () => {});
      for (let i = 0; i < 200 && !(await answers(url, 200)); i++) await sleep(25);
      if (!(await answers(url))) throw new Error(`redis-server on port ${port} does not answer`);
    },
  };
  return node;
}

/** Waits until the replica on `replicaUrl` is connected to its primary and in sync. */
export async function replicaInSync(replicaUrl: string, timeoutMs = 30_000): Promise<void> {
  const client = new Redis(replicaUrl, { maxRetriesPerRequest: 1 });
  client.on("error", () => {});
  try {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const info = await client.info("replication").catch(() => "");
      if (/master_link_status:up/.test(info) && /master_sync_in_progress:0/.test(info)) return;
      await sleep(100);
    }
    throw new Error(`replica ${replicaUrl} did not sync within ${timeoutMs} ms`);
  } finally {
    client.disconnect();
  }
}

export async function startReplicatedRedis(options: {
  sentinel: boolean;
  downAfterMs?: number;
}): Promise<ReplicatedRedis> {
  const root = await mkdtemp(join(tmpdir(), "tickq-replicated-"));
  const children: (() => number | undefined)[] = [];
  const killAll = () => {
    for (const pid of children.map((p) => p())) {
      if (pid === undefined) continue;
      try {
        process.kill(pid, "SIGCONT");
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  // First of the exit listeners: vitest's, on SIGINT or SIGTERM, calls process.exit() again from its own.
  process.prependListener("exit", killAll);
  const dirs = [join(root, "a"), join(root, "b"), join(root, "s")];
  for (const dir of dirs) await mkdir(dir);
  const primary = await startNode(dirs[0]!, []);
  children.push(primary.pid);
  await primary.start();
  const replica = await startNode(dirs[1]!, []);
  children.push(replica.pid);
  await replica.start(primary.port);
  await replicaInSync(replica.url);

  let sentinelPort: number | undefined;
  let sentinel: ChildProcess | undefined;
  if (options.sentinel) {
    sentinelPort = await freePort();
    const conf = join(dirs[2]!, "sentinel.conf");
    const downAfter = options.downAfterMs ?? 1_000;
    await writeFile(
      conf,
      [
        `port ${sentinelPort}`,
        "bind 127.0.0.1",
        `dir ${dirs[2]}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary.port} 1`,
        `sentinel down-after-milliseconds ${MASTER_NAME} ${downAfter}`,
        `sentinel failover-timeout ${MASTER_NAME} 4000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
        `logfile ${join(dirs[2]!, "sentinel.log")}`,
        "",
      ].join("\n"),
    );
    // redis-server in Sentinel mode is what Debian's redis-sentinel package
    // links to; spawning redis-server needs no second package.
    sentinel = spawn("redis-server", [conf, "--sentinel"], { stdio: "ignore" });
    let spawnError: Error | undefined;
    sentinel.on("error", (error) => void (spawnError = error));
    children.push(() => sentinel?.pid);
    const url = `redis://127.0.0.1:${sentinelPort}`;
    for (let i = 0; i < 200 && !spawnError && !(await answers(url, 200)); i++) await sleep(25);
    // Without this check a Sentinel that never started surfaced much later,
    // as a harness probe's connection error in the middle of the first failover.
    if (!(await answers(url))) {
      killAll();
      process.off("exit", killAll);
      throw new Error(
        `the Sentinel (redis-server --sentinel on port ${sentinelPort}) does not answer${spawnError ? `: ${spawnError.message}` : ""}`,
      );
    }
  }

  const askOnce = async (): Promise<number> => {
    const client = new Redis(sentinelPort!, "127.0.0.1", { maxRetriesPerRequest: 1 });
    client.on("error", () => {});
    try {
      const [, port] = (await client.call("SENTINEL", "get-master-addr-by-name", MASTER_NAME)) as [string, string];
      return Number(port);
    } finally {
      client.disconnect();
    }
  };
  // A loaded machine can drop one Sentinel connection mid-failover; that is
  // the harness's connection, not a fault under test, so ask again.
  const ask = async (): Promise<number> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await askOnce();
      } catch (error) {
        if (attempt >= 20)
          throw new Error(`the Sentinel on port ${sentinelPort} did not name the primary in ${attempt} attempts`, {
            cause: error,
          });
        await sleep(250);
      }
    }
  };
  return {
    nodes: [primary, replica],
    sentinelPort,
    logs: {
      nodes: [join(dirs[0]!, "redis.log"), join(dirs[1]!, "redis.log")],
      sentinel: options.sentinel ? join(dirs[2]!, "sentinel.log") : undefined,
    },
    primaryPort: () => (sentinelPort === undefined ? Promise.resolve(primary.port) : ask()),
    async stop() {
      killAll();
      process.off("exit", killAll);
      await rm(root, { recursive: true, force: true });
    },
  };
}
