// The Redis of the commands that run a server over TCP (`dev`, `serve`, `redis-http`): REDIS_URL,
// read and checked as every command reads it (redis-from-env.ts), else 127.0.0.1:6379, else a private
// redis-server from the PATH (find-redis.ts, as npm start and the tests find it), said in one line;
// with none, the one command that installs Redis here.
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { TickqError } from "../../errors.js";
import { findRedis, type FoundRedis } from "../../platforms/node/find-redis.js";
import { UsageError } from "../exit.js";
import { redisFromEnv, shownUrl, unreachable } from "../redis-from-env.js";

const SOURCES: Record<FoundRedis["source"], string> = {
  REDIS_URL: "from REDIS_URL",
  default: "found at 127.0.0.1:6379",
  private: "a private redis-server started for this run, without persistence (stopped on exit)",
};

/**
 * `command`'s Redis. Upstash's REST pair names no Redis it can serve over: `dev` and `serve` refuse it
 * rather than quietly take a local Redis instead; `redis-http` makes that pair, so it reads REDIS_URL alone.
 */
export async function devRedis(
  command: "dev" | "serve" | "redis-http",
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ found: FoundRedis; line: string }> {
  const given = redisFromEnv(command === "redis-http" ? { REDIS_URL: env.REDIS_URL } : env);
  if (given?.kind === "rest")
    throw new UsageError(
      `tickq ${command} runs a server over TCP and cannot use UPSTASH_REDIS_REST_URL: set REDIS_URL (redis://host:6379), or unset UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN to use a local Redis`,
    );
  let found: FoundRedis;
  try {
    found = await findRedis(given ? { REDIS_URL: given.url } : {});
  } catch (error) {
    if (given) throw new TickqError("REDIS", unreachable(shownUrl(given.url), "no answer to PING"), { cause: error });
    throw new UsageError(
      `no Redis: nothing answers at 127.0.0.1:6379 and redis-server is not on the PATH. Install it with\n  ${installCommand(env)}\nor set REDIS_URL`,
    );
  }
  return { found, line: `Redis: ${shownUrl(found.url)}, ${SOURCES[found.source]}` };
}

/** The one command that installs Redis on this system, by its package manager. */
export function installCommand(env: NodeJS.ProcessEnv = process.env, platform: string = process.platform): string {
  const has = (tool: string) =>
    (env.PATH ?? "").split(delimiter).some((dir) => dir !== "" && existsSync(join(dir, tool)));
  if (platform === "darwin") return "brew install redis";
  if (platform === "win32")
    return "wsl --install, then in WSL: sudo apt-get install redis-server (Redis has no Windows build)";
  if (has("apt-get")) return "sudo apt-get install redis-server";
  if (has("dnf")) return "sudo dnf install redis";
  if (has("yum")) return "sudo yum install redis";
  if (has("pacman")) return "sudo pacman -S redis";
  if (has("apk")) return "sudo apk add redis";
  if (has("zypper")) return "sudo zypper install redis";
  if (has("brew")) return "brew install redis";
  return "docker run -p 6379:6379 redis:7 (or your system's redis-server package)";
}
