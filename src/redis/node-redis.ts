// tickq over node-redis (`redis` on npm, v5: Redis' own client for Node),
// its standalone client (createClient) and its cluster client
// (createCluster). Scripts go by `evalSha`/`eval` with their keys declared,
// so the cluster client routes each call to the slot of the first key.
//
// Replies come back in the shape every adapter returns (strings, integers,
// null, nested arrays), over RESP2 and RESP3 alike: Redis converts a script's
// Lua values the RESP2 way unless the script asks otherwise. A client with a
// type mapping to Buffers gets bytes, read back as UTF-8 text as ioredis does.
//
// Resends: node-redis itself never sends a command twice. When the
// connection breaks, the commands already written are rejected ("Socket
// closed unexpectedly", ECONNRESET) though their scripts may have run, and
// the ones not yet written wait in its offline queue and go once, after the
// reconnect. ioredis resends the first kind (autoResendUnfulfilledCommands),
// and so does this adapter, a bounded number of times: the call waits in the
// offline queue for the reconnect, and tickq's scripts are replay-safe, so a
// resend of a call that ran leaves the same state and answers as the first.
// Either kind may reach Redis after tickq's own timeout gave up on the call,
// which a replay-safe script makes as harmless as a concurrent tick.
/**
 * The Redis adapter for a node-redis client (`redis` v5: createClient or createCluster), for Node.
 *
 * @module tickq/adapters/node-redis
 */
import { TickqError } from "../errors.js";
import type { RedisAdapter, RedisReply } from "./types.js";

/** The keys and arguments of node-redis' `eval` and `evalSha`. */
export interface NodeRedisEvalOptions {
  /** The script's KEYS. */
  keys: string[];
  /** The script's ARGV. */
  arguments: string[];
}

/**
 * What tickq uses of a node-redis client: a standalone client (`createClient`) or a cluster client
 * (`createCluster`), connected (`await client.connect()`).
 */
export interface NodeRedisClient {
  /** EVALSHA, routed on a cluster by the first key. */
  evalSha(sha1: string, options: NodeRedisEvalOptions): Promise<unknown>;
  /** EVAL, routed on a cluster by the first key. */
  eval(script: string, options: NodeRedisEvalOptions): Promise<unknown>;
  /** WAIT on the client's one connection (a standalone client); not used on a cluster. */
  wait?(numberOfReplicas: number, timeout: number): Promise<unknown>;
}

/** Options of `nodeRedisAdapter`. */
export interface NodeRedisAdapterOptions {
  /** Resends of a call whose connection broke before its reply came (its script may have run); default 2. */
  retries?: number;
}

/** A cluster client has masters and slots; a standalone client has neither. */
function isCluster(client: NodeRedisClient): boolean {
  return "masters" in client && "slots" in client;
}

/**
 * The adapter over a node-redis client: `createClient()` (one Redis) or `createCluster()` (a Redis Cluster,
 * which needs a prefix with a hash tag). Connect the client first, and listen to its `error` events (node-redis
 * throws them otherwise).
 * @example
 * const client = createClient({ url: process.env.REDIS_URL });
 * client.on("error", (error) => console.error(error));
 * await client.connect();
 * const tq = createTickq({ redis: nodeRedisAdapter(client), jobs });
 * // On a Redis Cluster, a prefix with a hash tag keeps tickq's keys in one slot:
 * const cluster = await createCluster({ rootNodes: [{ url: "redis://10.0.0.1:6379" }] }).connect();
 * const onCluster = createTickq({ redis: nodeRedisAdapter(cluster), prefix: "{tickq}:", jobs });
 */
export function nodeRedisAdapter(client: NodeRedisClient, options: NodeRedisAdapterOptions = {}): RedisAdapter {
  if (typeof client?.evalSha !== "function" || typeof client.eval !== "function") {
    throw new TickqError(
      "BAD_OPTIONS",
      "nodeRedisAdapter needs a node-redis client: createClient() or createCluster() from the redis package (v5)",
    );
  }
  const { retries = 2 } = options;
  if (!Number.isInteger(retries) || retries < 0)
    throw new TickqError("BAD_OPTIONS", `nodeRedisAdapter: retries must be a whole number ≥ 0, not ${retries}`);
  const resent = async (call: () => Promise<unknown>): Promise<RedisReply> => {
    for (let n = 0; ; n++) {
      try {
        return await called(call());
      } catch (error) {
        if (n >= retries || !connectionLost(error)) throw error;
      }
    }
  };
  const cluster = isCluster(client);
  const adapter: RedisAdapter = {
    cluster,
    evalsha: (sha, keys, args) => resent(() => client.evalSha(sha, { keys, arguments: args })),
    eval: (script, keys, args) => resent(() => client.eval(script, { keys, arguments: args })),
  };
  const wait = client.wait;
  // A cluster client sends a keyless WAIT to any master, not the one that ran the script: no WAIT there.
  if (cluster || typeof wait !== "function") return adapter;
  return {
    ...adapter,
    // A standalone client has one connection: WAIT counts the replicas that hold the writes before it.
    wait: async (replicas, timeoutMs) => Number(await called(wait.call(client, replicas, timeoutMs))),
  };
}

/** The connection broke after the call was written: Redis may have run it, and its reply is lost. */
function connectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return error.message === "Socket closed unexpectedly" || code === "ECONNRESET" || code === "EPIPE";
}

/** The reply in the adapters' common shape, or the call's error made clear. */
async function called(reply: Promise<unknown>): Promise<RedisReply> {
  try {
    return common(await reply);
  } catch (error) {
    throw clear(error);
  }
}

function common(reply: unknown): RedisReply {
  if (reply === null || reply === undefined) return null;
  if (typeof reply === "string" || typeof reply === "number") return reply;
  if (Array.isArray(reply)) return reply.map(common);
  // ignoreBOM: a leading byte order mark is kept, as rest-reply.ts keeps it.
  if (reply instanceof Uint8Array) return new TextDecoder("utf-8", { ignoreBOM: true }).decode(reply);
  throw new TickqError(
    "BAD_OPTIONS",
    `nodeRedisAdapter: got a reply tickq's scripts never give (${Object.prototype.toString.call(reply)}); use the client's default type mapping`,
  );
}

/** node-redis' "The client is closed" names no fix: say which. */
function clear(error: unknown): unknown {
  if (error instanceof Error && error.message === "The client is closed") {
    return new Error(
      "The node-redis client is closed: call `await client.connect()` before tickq uses it, and close it only after",
      { cause: error },
    );
  }
  return error;
}
