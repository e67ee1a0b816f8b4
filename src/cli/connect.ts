// How the CLI reaches Redis: as redis-from-env.ts reads the env, REDIS_URL (ioredis, TCP; with
// --cluster or REDIS_CLUSTER=1 a Redis Cluster, REDIS_URL naming one node or several,
// comma-separated) or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (restAdapter, HTTP:
// fetch alone), with the key prefix from --prefix or TICKQ_PREFIX. ioredis is imported only when used (an optional peer
// dependency); each is set to fail fast: a CLI should say "unreachable" in
// seconds, not retry on.
import { redactUrl } from "../redact.js";
import { hashTagOf, isClusterReply } from "../tick/runtime.js";
import {
  createTickq,
  TickqError,
  type JobLogger,
  type JobRegistry,
  type OrderedRegistry,
  type QueueOrder,
  type RedisAdapter,
  type Schedules,
  type Tickq,
  type WorkflowsOption,
} from "../index.js";
import type { Cluster, Redis } from "ioredis";
import { isOn } from "../http/env.js";
import { ioredisFromUrl } from "../redis/ioredis-url.js";
import { UsageError } from "./exit.js";
import { NO_REDIS, redisFromEnv, shownUrl, unreachable } from "./redis-from-env.js";

export interface Connection {
  adapter: RedisAdapter;
  /** What it connects to, for messages. */
  target: string;
  close(): Promise<void>;
}

/** Loads an optional peer (a Redis client), or fails with a usage error naming the package to install. */
export async function importClient<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch {
    throw new UsageError(`this needs the ${name} package: npm install ${name}`);
  }
}

export async function connect(env: NodeJS.ProcessEnv = process.env): Promise<Connection> {
  const redis = redisFromEnv(env);
  if (redis === undefined) throw new UsageError(NO_REDIS);
  if (redis.kind === "tcp") {
    const io = await importClient("ioredis", () => import("ioredis"));
    const { ioredisAdapter } = await import("../redis/ioredis.js");
    const cluster = isOn(env.REDIS_CLUSTER);
    let client: Redis | Cluster;
    try {
      client = ioredisFromUrl(io, redis.url, {
        cluster,
        redis: { maxRetriesPerRequest: 1, connectTimeout: 3_000, retryStrategy: (times) => (times > 2 ? null : 200) },
        clusterOptions: { clusterRetryStrategy: (times) => (times > 2 ? null : 200) },
      });
    } catch (error) {
      throw new UsageError((error as Error).message.replace("REDIS_CLUSTER=1 (the CLI: --cluster)", "--cluster"));
    }
    const target = shownUrl(redis.url);
    // A call that fails because the connection did says so, as the server does, not ioredis' "max retries per request".
    let down: string | undefined;
    client.on("error", (error: Error) => void (down = error.message));
    client.on("ready", () => void (down = undefined));
    const inner = ioredisAdapter(client);
    const clear = <T>(call: () => Promise<T>) =>
      call().catch((error: unknown) => {
        // A cluster node answers a one-node client that the key lives elsewhere: say which option it needs.
        if (!cluster && isClusterReply(error))
          throw new TickqError(
            "BAD_OPTIONS",
            `Redis at ${target} is a Redis Cluster node: add --cluster (or REDIS_CLUSTER=1)`,
          );
        if (client.status === "ready" || down === undefined) throw error;
        throw new TickqError("REDIS", whyDown(target, down, cluster), { cause: error });
      });
    const adapter: RedisAdapter = {
      cluster: inner.cluster === true,
      evalsha: (sha, keys, args) => clear(() => inner.evalsha(sha, keys, args)),
      eval: (script, keys, args) => clear(() => inner.eval(script, keys, args)),
    };
    return { adapter, target, close: async () => void client.disconnect() };
  }
  const { restAdapter } = await import("../redis/rest.js");
  const adapter = restAdapter({ url: redis.url, token: redis.token, retries: 1, backoffMs: () => 200 });
  return { adapter, target: redactUrl(redis.url), close: async () => {} };
}

export interface Session {
  tickq: Tickq<JobRegistry>;
  connection: Connection;
}

export interface SessionOptions {
  prefix: string;
  /** Default: --partitions or TICKQ_PARTITIONS (withTickq's caller passes globals; the env covers the rest). */
  partitions?: number | "auto";
  jobs?: JobRegistry;
  queues?: QueueOrder;
  schedules?: Schedules;
  ordered?: OrderedRegistry;
  workflows?: WorkflowsOption<Record<string, unknown>>;
}

/** Every line tickq logs goes to stderr: stdout is for the command's own output (and --json). tickq makes each printable. */
const stderrLogger: JobLogger = {
  info: (message, ...rest) => console.error(message, ...rest),
  warn: (message, ...rest) => console.error(message, ...rest),
  error: (message, ...rest) => console.error(message, ...rest),
};

/**
 * TICKQ_PARTITIONS (--partitions sets it), else on a cluster "auto" for a prefix without a hash tag: the count
 * the deployment stored (or one found from the cluster's shape), so `tickq --cluster stats` reads it as it is.
 */
function partitionsFor(connection: Connection, prefix: string): number | "auto" | undefined {
  const text = process.env.TICKQ_PARTITIONS;
  if (text) return text === "auto" ? "auto" : Number(text);
  return connection.adapter.cluster && hashTagOf(prefix) === undefined ? "auto" : undefined;
}

/** Connects, runs `work` with a tickq over that connection, and closes. */
export async function withTickq<T>(options: SessionOptions, work: (session: Session) => Promise<T>): Promise<T> {
  const connection = await connect();
  try {
    const tickq = createTickq({
      redis: connection.adapter,
      jobs: options.jobs ?? {},
      prefix: options.prefix,
      partitions: options.partitions ?? partitionsFor(connection, options.prefix),
      queues: options.queues,
      schedules: options.schedules,
      ordered: options.ordered,
      workflows: options.workflows,
      redisTimeoutMs: 5_000,
      logger: stderrLogger,
    });
    return await work({ tickq, connection });
  } finally {
    await connection.close();
  }
}

/** What the CLI says when the connection failed: refused credentials and a missing cluster apart from a server that is down. */
function whyDown(target: string, down: string, cluster: boolean): string {
  if (/WRONGPASS|NOAUTH|invalid (username-)?password|AUTH/i.test(down))
    return `Redis at ${target} refused the credentials (${down}): check the user and password in REDIS_URL`;
  if (cluster && /refresh slots cache/i.test(down))
    return `Redis at ${target} answered no cluster slots (${down}): is it a Redis Cluster node? For one Redis, leave out --cluster (REDIS_CLUSTER)`;
  return unreachable(target, down);
}
