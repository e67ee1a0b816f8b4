// Finds a Redis for `npm start` and for the tests, the same way for both:
// REDIS_URL if set; else 127.0.0.1:6379 if it answers; else a private
// redis-server (if one is on the PATH) on a free port, with no persistence;
// else an error that says how to get Redis.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import { redisUrls } from "../../redis/ioredis-url.js";
import { redactUrl } from "../../redact.js";

/** The Redis `findRedis` found or started. */
export interface FoundRedis {
  /** Its URL. */
  url: string;
  /** Stops the private redis-server, if this call started one. */
  stop(): Promise<void>;
  /** Where it came from: the REDIS_URL variable, 127.0.0.1:6379, or a private redis-server. */
  source: "REDIS_URL" | "default" | "private";
}

const DEFAULT_URL = "redis://127.0.0.1:6379";

/**
 * A Redis to use: REDIS_URL if set (it must answer), else 127.0.0.1:6379 if it answers, else a private
 * redis-server from the PATH on a free port, without persistence.
 */
export async function findRedis(env: NodeJS.ProcessEnv = process.env): Promise<FoundRedis> {
  const none = async () => {};
  if (env.REDIS_URL) {
    // A cluster's seeds (comma-separated): the first must answer; the client learns the rest.
    const first = redisUrls(env.REDIS_URL)[0] ?? env.REDIS_URL;
    if (!(await answers(first)))
      throw new Error(`REDIS_URL=${redactUrl(first)} does not answer PING: is Redis running there?`);
    return { url: env.REDIS_URL, stop: none, source: "REDIS_URL" };
  }
  if (await answers(DEFAULT_URL)) return { url: DEFAULT_URL, stop: none, source: "default" };
  return startPrivate();
}

export async function answers(url: string, timeoutMs = 1_000): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** A private redis-server on a free port, no persistence. */
export async function startPrivate(): Promise<FoundRedis> {
  const port = await freePort();
  let child: ChildProcess;
  try {
    child = await spawnRedis(port);
  } catch {
    throw new Error(
      "No Redis answers at 127.0.0.1:6379 and redis-server is not on the PATH. " +
        "Set REDIS_URL, or install Redis (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis).",
    );
  }
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50 && !(await answers(url, 200)); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await answers(url))) throw new Error(`started redis-server on port ${port} but it does not answer`);
  const stop = async () => {
    child.kill("SIGTERM");
  };
  return { url, stop, source: "private" };
}

function spawnRedis(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {
        stdio: "ignore",
      },
    );
    child.once("error", reject);
    child.once("spawn", () => resolve(child));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
