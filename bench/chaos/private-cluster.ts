// A Redis Cluster of the run's own: `masters` masters, each with `replicas`
// replicas, every node a `redis-server --cluster-enabled yes` on a free port
// (and that port + 10000, its cluster bus) with its own folder, joined by
// `redis-cli --cluster create … --cluster-replicas R` (fewer than 3 masters,
// which redis-cli refuses, by hand: slots split evenly, then MEET). A small
// cluster-node-timeout makes the cluster promote a replica within seconds of
// a master's death. Nodes are SIGKILLed and started again by PID, on their
// port and folder: a node started again reads its nodes.conf and rejoins (a
// failed-over master comes back as a replica of its successor). Free of
// vitest: the cluster chaos phase, its fault test, the test setup and the
// scaling bench start one. The start resolves once the cluster is settled
// and every node's CLUSTER SLOTS lists the replicas (what clients learn). An
// exit hook kills every node if the run dies first.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { sleep } from "./rng.js";

export interface ClusterOptions {
  masters: number;
  /** Replicas of each master; default 0. */
  replicas?: number;
  /** cluster-node-timeout: how long a silent master lives before its replica takes over; default 1000. */
  nodeTimeoutMs?: number;
  /** AOF with `appendfsync always` (a SIGKILL loses nothing a node answered); default false (no persistence). */
  durable?: boolean;
}

export interface ClusterNode {
  port: number;
  pid(): number | undefined;
  alive(): boolean;
  /** SIGKILL by PID; resolves once it exited. */
  kill(): Promise<void>;
  /** Starts it again on its port and folder (its nodes.conf); resolves once it answers PING. */
  start(): Promise<void>;
}

/** One master as the cluster sees it now: its port, its slot ranges, its replicas' ports. */
export interface ClusterMaster {
  port: number;
  slots: [number, number][];
  replicas: number[];
}

export interface PrivateRedisCluster {
  nodes: ClusterNode[];
  /** Where clients start: every node's address. */
  seeds: { host: string; port: number }[];
  /** The masters that hold slots, read from a live node's CLUSTER NODES (failed ones left out). */
  masters(): Promise<ClusterMaster[]>;
  /** The node (a live master) that serves `slot` now. */
  masterOf(slot: number): Promise<ClusterNode | undefined>;
  /**
   * Resolves once every live node says cluster_state:ok, every slot has a
   * live master and each such master has `replicas` replicas linked and in
   * sync; false if that does not happen within `timeoutMs`.
   */
  settled(timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

const listens = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

async function freePortPair(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 400; i++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await listens(port)) && (await listens(port + 10_000))) return port;
  }
  throw new Error("no free port pair for a cluster node");
}

/** A short-lived client of one node; undefined when it does not answer. */
async function ask<T>(port: number, question: (client: Redis) => Promise<T>): Promise<T | undefined> {
  const client = new Redis({
    port,
    host: "127.0.0.1",
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 500,
    commandTimeout: 1_000,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return await question(client);
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

/** CLUSTER NODES, as one row per node. */
export interface NodeRow {
  id: string;
  port: number;
  flags: string[];
  masterId: string;
  link: string;
  slots: [number, number][];
}

export function parseNodes(text: string): NodeRow[] {
  return text
    .trim()
    .split("\n")
    .map((line) => {
      const [id, address, flags, masterId, , , , link, ...slots] = line.split(" ");
      const port = Number(/:(\d+)@/.exec(address!)?.[1]);
      const ranges = slots
        .filter((s) => !s.startsWith("["))
        .map((s): [number, number] => {
          const [a, b] = s.split("-").map(Number);
          return [a!, b ?? a!];
        });
      return { id: id!, port, flags: flags!.split(","), masterId: masterId!, link: link!, slots: ranges };
    });
}

function nodeArgs(port: number, dir: string, o: Required<ClusterOptions>): string[] {
  return [
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
    // A node that never met another knows no address of its own, and would name its slots' owner "".
    "--cluster-announce-ip",
    "127.0.0.1",
    "--cluster-node-timeout",
    String(o.nodeTimeoutMs),
    // A replica cut off for a while must still take over: the run kills masters on purpose.
    "--cluster-replica-validity-factor",
    "0",
    // Keep each master's replicas where they were placed, so every master stays covered.
    "--cluster-allow-replica-migration",
    "no",
    // Redis 7 leaves a replica whose offset is still 0 out of CLUSTER SLOTS, so a client would not know it until
    // something was written: a master's ping a second moves its replicas' offsets from the start.
    "--repl-ping-replica-period",
    "1",
    // A master sends its data to a replica at once instead of waiting 5 s for more replicas to share the transfer.
    "--repl-diskless-sync-delay",
    "0",
    "--save",
    "",
    "--appendonly",
    o.durable ? "yes" : "no",
    ...(o.durable ? ["--appendfsync", "always"] : []),
    "--daemonize",
    "no",
  ];
}

/** `redis-cli --cluster create`: slots split evenly over the masters, `replicas` replicas each. */
function create(nodes: ClusterNode[], replicas: number): void {
  const created = spawnSync(
    "redis-cli",
    [
      "--cluster",
      "create",
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      "--cluster-replicas",
      String(replicas),
      "--cluster-yes",
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stderr || created.stdout}`);
}

/** redis-cli creates clusters of 3 masters or more; 1 or 2 (no replicas) are joined by hand: slots split evenly, then MEET. */
async function joinByHand(nodes: ClusterNode[], o: Required<ClusterOptions>): Promise<void> {
  if (o.replicas > 0) throw new Error("a cluster of fewer than 3 masters is built without replicas here");
  for (const [i, node] of nodes.entries()) {
    const low = Math.floor((i * 16_384) / nodes.length);
    const high = Math.floor(((i + 1) * 16_384) / nodes.length) - 1;
    await ask(node.port, (c) => c.call("CLUSTER", "ADDSLOTSRANGE", low, high));
    if (i > 0) await ask(node.port, (c) => c.call("CLUSTER", "MEET", "127.0.0.1", nodes[0]!.port));
  }
}

export async function startPrivateRedisCluster(options: ClusterOptions): Promise<PrivateRedisCluster> {
  const o: Required<ClusterOptions> = { replicas: 0, nodeTimeoutMs: 1_000, durable: false, ...options };
  const root = await mkdtemp(join(tmpdir(), "tickq-cluster-"));
  const children: (ChildProcess | undefined)[] = [];
  const killAll = () => {
    for (const child of children)
      if (child?.pid && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  };
  // First of the exit listeners: vitest's, on SIGINT or SIGTERM, calls process.exit() again from its own, which
  // ends the process before the listeners after it run.
  process.prependListener("exit", killAll);

  const taken = new Set<number>();
  const nodes: ClusterNode[] = [];
  const count = o.masters * (1 + o.replicas);
  for (let i = 0; i < count; i++) {
    let port = await freePortPair(taken);
    taken.add(port).add(port + 10_000);
    let answered = false;
    const slot = i;
    const isAlive = () => {
      const c = children[slot];
      return c !== undefined && c.exitCode === null && c.signalCode === null;
    };
    // Spawns it on `port`; true once it answers, false if it exited first or another server answers there (its
    // port was taken).
    const spawnOn = async (): Promise<boolean> => {
      const dir = join(root, String(port));
      mkdirSync(dir, { recursive: true });
      const c = spawn("redis-server", nodeArgs(port, dir, o), { stdio: "ignore" });
      c.on("error", () => {});
      children[slot] = c;
      for (let t = 0; t < 400; t++) {
        // By its process id: another process's server that took the port first would answer PING too.
        const pid = await ask(port, async (client) => /process_id:(\d+)/.exec(await client.info("server"))?.[1]);
        if (pid !== undefined && pid === String(c.pid)) return (answered = true);
        if (pid !== undefined) {
          c.kill("SIGKILL");
          return false;
        }
        if (!isAlive()) return false;
        await sleep(25);
      }
      throw new Error(`cluster node on port ${port} does not answer`);
    };
    nodes.push({
      get port() {
        return port;
      },
      pid: () => children[slot]?.pid,
      alive: isAlive,
      async kill() {
        const c = children[slot];
        if (!c || !isAlive()) return;
        const exited = new Promise<void>((resolve) => c.once("exit", () => resolve()));
        c.kill("SIGKILL");
        await exited;
      },
      async start() {
        // Another process may bind a port between freePortPair's check and this spawn: before the node first
        // answered (no other node knows its port yet), it moves to another free pair.
        for (let moves = 0; !(await spawnOn()); moves++) {
          if (answered || moves >= 5) throw new Error(`cluster node on port ${port} exited before it answered`);
          port = await freePortPair(taken);
          taken.add(port).add(port + 10_000);
        }
      },
    });
  }

  const liveRows = async (): Promise<NodeRow[] | undefined> => {
    for (const node of nodes.filter((n) => n.alive())) {
      const text = await ask(node.port, (c) => c.call("CLUSTER", "NODES") as Promise<string>);
      if (text) return parseNodes(text);
    }
    return undefined;
  };
  const masters = async (): Promise<ClusterMaster[]> => {
    const rows = (await liveRows()) ?? [];
    return rows
      .filter((r) => r.flags.includes("master") && !r.flags.some((f) => f.startsWith("fail")) && r.slots.length > 0)
      .map((r) => ({
        port: r.port,
        slots: r.slots,
        replicas: rows
          .filter((x) => x.masterId === r.id && !x.flags.some((f) => f.startsWith("fail")))
          .map((x) => x.port),
      }));
  };
  /** Whether every live node's CLUSTER SLOTS lists `replicas` replicas for every range: what clients learn. */
  const isAnnounced = async (): Promise<boolean> => {
    for (const node of nodes.filter((n) => n.alive())) {
      const ranges = await ask(node.port, (c) => c.call("CLUSTER", "SLOTS") as Promise<unknown[][]>);
      if (!ranges || ranges.some((range) => range.length - 3 < o.replicas)) return false;
    }
    return true;
  };
  const announced = async (timeoutMs: number): Promise<boolean> => {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if (await isAnnounced()) return true;
      await sleep(100);
    }
    return false;
  };
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.kill()));
    process.off("exit", killAll);
    rmSync(root, { recursive: true, force: true });
  };

  try {
    for (const node of nodes) await node.start();
    if (o.masters < 3) await joinByHand(nodes, o);
    else create(nodes, o.replicas);
    const cluster: PrivateRedisCluster = {
      nodes,
      seeds: nodes.map((n) => ({ host: "127.0.0.1", port: n.port })),
      masters,
      async masterOf(slot) {
        const owner = (await masters()).find((m) => m.slots.some(([a, b]) => slot >= a && slot <= b));
        return nodes.find((n) => n.port === owner?.port && n.alive());
      },
      async settled(timeoutMs) {
        const until = Date.now() + timeoutMs;
        while (Date.now() < until) {
          if (await isSettled()) return true;
          await sleep(100);
        }
        return false;
      },
      stop,
    };
    const isSettled = async (): Promise<boolean> => {
      const live = nodes.filter((n) => n.alive());
      const states = await Promise.all(
        live.map((n) => ask(n.port, (c) => c.call("CLUSTER", "INFO") as Promise<string>)),
      );
      if (!states.every((s) => s !== undefined && /cluster_state:ok/.test(s))) return false;
      const current = await masters();
      const covered = current.reduce((sum, m) => sum + m.slots.reduce((s, [a, b]) => s + b - a + 1, 0), 0);
      if (covered !== 16_384 || current.some((m) => !nodes.find((n) => n.port === m.port)?.alive())) return false;
      for (const m of current) {
        const linked = await Promise.all(m.replicas.map((port) => ask(port, (c) => c.info("replication"))));
        const inSync = linked.filter(
          (i) => i && /master_link_status:up/.test(i) && /master_sync_in_progress:0/.test(i),
        );
        if (inSync.length < o.replicas) return false;
      }
      return true;
    };
    if (!(await cluster.settled(60_000)))
      throw new Error("the private cluster never settled (cluster_state:ok, replicas in sync)");
    if (!(await announced(60_000)))
      throw new Error(`the private cluster's CLUSTER SLOTS never listed ${o.replicas} replica(s) a master`);
    return cluster;
  } catch (error) {
    await stop();
    throw error;
  }
}
