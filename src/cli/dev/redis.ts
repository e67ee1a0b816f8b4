// The Redis `tickq dev` uses: REDIS_URL, else 127.0.0.1:6379, else a private redis-server from the
// PATH (find-redis.ts, as npm start and the tests find it), said in one line; with none, the one
// command that installs Redis here.
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { findRedis, type FoundRedis } from "../../platforms/node/find-redis.js";
import { redactUrl } from "../../redact.js";
import { redisUrls } from "../../redis/ioredis-url.js";
import { UsageError } from "../exit.js";

const SOURCES: Record<FoundRedis["source"], string> = {
  REDIS_URL: "from REDIS_URL",
  default: "found at 127.0.0.1:6379",
  private: "a private redis-server started for this run, without persistence (stopped on exit)",
};

export async function devRedis(env: NodeJS.ProcessEnv = process.env): Promise<{ found: FoundRedis; line: string }> {
  let found: FoundRedis;
  try {
    found = await findRedis(env);
  } catch (error) {
    if (env.REDIS_URL) throw new UsageError((error as Error).message);
    throw new UsageError(
      `no Redis: nothing answers at 127.0.0.1:6379 and redis-server is not on the PATH. Install it with\n  ${installCommand(env)}\nor set REDIS_URL`,
    );
  }
  const where = redisUrls(found.url).map(redactUrl).join(",");
  return { found, line: `Redis: ${where}, ${SOURCES[found.source]}` };
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
