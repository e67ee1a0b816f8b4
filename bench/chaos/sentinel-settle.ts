// After each fault of the Sentinel phase the harness waits until Sentinel
// and both nodes agree again: no failover under way, the node Sentinel
// names answers ROLE as a master, the other as its replica, connected and
// synced. Waiting for one node's sync alone was not enough: on a loaded
// machine a node that misses PINGs for down-after-milliseconds makes
// Sentinel start failovers the harness never asked for, some aborted after
// SLAVEOF NO ONE (a promoted node Sentinel does not name), and the harness
// restarted or waited on a node with a picture that was no longer true;
// the phase then died waiting for a replica that could not sync (a node
// left replicating a replica, NOMASTERLINK, master_last_io_seconds_ago:-1).
//
// Sentinel itself repairs most of what it sees (a stray master is made a
// replica after 8 s, a replica of the wrong master after failover-timeout),
// so the harness only waits. What Sentinel never repairs — its named
// primary replicating the other node, a circle, where no replica is fit to
// promote — the harness repairs after `repairAfterMs`, as an operator
// would: REPLICAOF NO ONE on the named node, REPLICAOF it on the other.
// Each repair is counted and shown in the phase's table.
import { readFile } from "node:fs/promises";
import { Redis } from "ioredis";
import { MASTER_NAME, type ReplicatedRedis } from "./replicated-redis.js";
import { sleep } from "./rng.js";

type Role =
  | { role: "master" }
  | { role: "slave"; masterPort: number; state: string }
  | { role: "unknown"; answer: string };

interface View {
  /** The port Sentinel names; undefined when it did not answer. */
  named: number | undefined;
  /** Sentinel's flags for the primary ("master" alone when nothing is under way). */
  flags: string;
  roles: Map<number, Role>;
}

/** One command on a connection of its own, with short timeouts: a reply, or the error's message in parentheses. */
async function probe(port: number, ...command: string[]): Promise<unknown> {
  const client = new Redis(port, "127.0.0.1", {
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: 2_000,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return await client.call(command[0]!, ...command.slice(1));
  } catch (error) {
    return `(${(error as Error).message})`;
  } finally {
    client.disconnect();
  }
}

function roleOf(reply: unknown): Role {
  if (Array.isArray(reply) && reply[0] === "master") return { role: "master" };
  if (Array.isArray(reply) && reply[0] === "slave")
    return { role: "slave", masterPort: Number(reply[2]), state: String(reply[3]) };
  return { role: "unknown", answer: JSON.stringify(reply) };
}

async function look(servers: ReplicatedRedis): Promise<View> {
  const sentinel = servers.sentinelPort!;
  const [addr, master, ...roles] = await Promise.all([
    probe(sentinel, "SENTINEL", "get-master-addr-by-name", MASTER_NAME),
    probe(sentinel, "SENTINEL", "master", MASTER_NAME),
    ...servers.nodes.map((n) => probe(n.port, "ROLE")),
  ]);
  const fields = Array.isArray(master) ? (master as string[]) : [];
  return {
    named: Array.isArray(addr) ? Number(addr[1]) : undefined,
    flags: fields[fields.indexOf("flags") + 1] ?? String(master),
    roles: new Map(servers.nodes.map((n, i) => [n.port, roleOf(roles[i])])),
  };
}

/** Why the topology is not settled, in words; undefined when it is. */
function unsettled(view: View): string | undefined {
  if (view.named === undefined) return "Sentinel names no primary";
  if (view.flags !== "master") return `Sentinel's primary ${view.named} is flagged ${view.flags}`;
  for (const [port, role] of view.roles) {
    if (port === view.named && role.role !== "master") return `the named primary ${port} is ${JSON.stringify(role)}`;
    if (port !== view.named && (role.role !== "slave" || role.masterPort !== view.named || role.state !== "connected"))
      return `node ${port} is ${JSON.stringify(role)}, not a synced replica of ${view.named}`;
  }
  return undefined;
}

/** Waits until Sentinel and both nodes agree (see the file's header); returns the repairs it made. */
export async function settleReplication(
  servers: ReplicatedRedis,
  options: { timeoutMs?: number; repairAfterMs?: number; log?: (line: string) => void } = {},
): Promise<number> {
  const { timeoutMs = 120_000, repairAfterMs = 30_000, log = () => {} } = options;
  const started = Date.now();
  let waitingSince = started;
  let repairs = 0;
  let why: string | undefined = "not looked yet";
  while (Date.now() - started < timeoutMs) {
    const view = await look(servers);
    why = unsettled(view);
    if (why === undefined) return repairs;
    // No failover under way and still not right: Sentinel will not put it right.
    const idle = view.named !== undefined && !/failover_in_progress/.test(view.flags);
    if (idle && Date.now() - waitingSince >= repairAfterMs) {
      const named = view.named!;
      if (view.roles.get(named)?.role !== "master") await probe(named, "REPLICAOF", "NO", "ONE");
      for (const node of servers.nodes)
        if (node.port !== named) await probe(node.port, "REPLICAOF", "127.0.0.1", String(named));
      repairs++;
      waitingSince = Date.now();
      log(`sentinel: the harness repaired the replication (${why})`);
    }
    await sleep(250);
  }
  throw new Error(`Sentinel and the nodes did not agree within ${timeoutMs} ms: ${why}\n${await snapshot(servers)}`);
}

const lastLines = async (file: string | undefined, n: number) =>
  file === undefined
    ? ""
    : (await readFile(file, "utf8").catch(() => "(no log)")).trimEnd().split("\n").slice(-n).join("\n");

/** What each node and the Sentinel say now, and the ends of their logs: for a failure's message. */
export async function snapshot(servers: ReplicatedRedis): Promise<string> {
  const parts: string[] = [];
  for (const [i, node] of servers.nodes.entries()) {
    parts.push(`node ${node.port} (pid ${node.pid()}): ROLE ${JSON.stringify(await probe(node.port, "ROLE"))}`);
    parts.push(await lastLines(servers.logs.nodes[i], 20));
  }
  if (servers.sentinelPort !== undefined) {
    const sentinel = servers.sentinelPort;
    parts.push(`Sentinel master: ${JSON.stringify(await probe(sentinel, "SENTINEL", "master", MASTER_NAME))}`);
    parts.push(`Sentinel replicas: ${JSON.stringify(await probe(sentinel, "SENTINEL", "replicas", MASTER_NAME))}`);
    parts.push(await lastLines(servers.logs.sentinel, 80));
  }
  return parts.join("\n");
}
