// The interop suite's Ruby: real Sidekiq (Debian's ruby-sidekiq) driven
// through child processes — `ruby` scripts run with the fixtures' helper
// (Sidekiq's client and API), and a real `sidekiq` server process — on a
// redis-server of the suite's own, since Sidekiq's keys have no prefix.
// Where Ruby Sidekiq is not installed the suite is skipped with the reason
// printed; `.ci/run` installs it and sets TICKQ_REQUIRE_SIDEKIQ=1, so CI fails
// rather than skip.
import { execFile, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe } from "vitest";
import { ioredisAdapter } from "../../../../src/redis/ioredis.js";
import { createTickq, type Tickq } from "../../../../src/index.js";
import type { JobLogger } from "../../../../src/job/context.js";
import type { JobRegistry } from "../../../../src/job/definition.js";
import type { TickqOptions } from "../../../../src/types.js";
import { startPrivateRedis, type PrivateRedis } from "../../../helpers/private-redis.js";
import { sleep } from "../../../helpers/redis.js";

export const FIXTURES = fileURLToPath(new URL("../../../fixtures/sidekiq/", import.meta.url));

/** Why the suite cannot run here (no Ruby Sidekiq, no redis-server for a private Redis), or undefined. */
function interopMissing(): string | undefined {
  const server = spawnSync("redis-server", ["--version"], { encoding: "utf8", timeout: 10_000 });
  if (server.error) return `redis-server is not installed (${server.error.message}): the suite needs a private Redis`;
  const probe = spawnSync("ruby", ["-e", 'require "sidekiq/api"; print Sidekiq::VERSION'], {
    encoding: "utf8",
    timeout: 60_000,
  });
  if (probe.error) return `ruby is not installed (${probe.error.message}); apt-get install ruby-sidekiq`;
  if (probe.status !== 0)
    return `Ruby Sidekiq does not load (${probe.stderr.trim().split("\n")[0]}); apt-get install ruby-sidekiq`;
  return undefined;
}

const missing = interopMissing();
if (missing !== undefined) {
  if (process.env.TICKQ_REQUIRE_SIDEKIQ === "1")
    throw new Error(`The Sidekiq interop suite must run here (TICKQ_REQUIRE_SIDEKIQ=1), but ${missing}`);
  console.warn(`Sidekiq interop suite skipped: ${missing}`);
}

/** describe(), skipped (the reason printed above) where Ruby Sidekiq is not installed. */
export function describeWithRuby(name: string, body: () => void): void {
  describe.skipIf(missing !== undefined)(name, body);
}

export interface Interop {
  url: string;
  /** A direct connection to the suite's Redis, for setup and assertions. */
  redis: Redis;
  /** tickq on Sidekiq's keys (prefix ""), over ioredis. */
  make<J extends JobRegistry>(jobs: J, options?: Partial<TickqOptions<J>>): Tickq<J>;
  /** Runs Ruby with Sidekiq's client and API loaded; resolves to what it `out`s (JSON). */
  ruby<T = unknown>(code: string): Promise<T>;
}

const quiet: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** A private Redis for the describe block, flushed before each test. */
export function useInterop(): Interop {
  const w = {} as Interop;
  let server: PrivateRedis | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startPrivateRedis();
    w.url = server.url;
    w.redis = new Redis(server.url);
  });
  beforeEach(async () => {
    await w.redis.flushall();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    w.redis?.disconnect();
    await server?.stop();
  });
  w.make = (jobs, options = {}) => {
    const client = new Redis(w.url);
    clients.push(client);
    return createTickq({ redis: ioredisAdapter(client), prefix: "", logger: quiet, ...options, jobs });
  };
  w.ruby = <T>(code: string) => runRuby<T>(w.url, code);
  return w;
}

function runRuby<T>(url: string, code: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const args = ["-I", FIXTURES, "-r", "helper", "-e", code];
    execFile(
      "ruby",
      args,
      { env: { ...process.env, REDIS_URL: url }, timeout: 60_000, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`ruby failed: ${error.message}\n${stderr}`));
        const last = stdout.trim().split("\n").pop() ?? "";
        try {
          resolve(JSON.parse(last) as T);
        } catch {
          reject(new Error(`ruby printed no JSON: ${stdout}\n${stderr}`));
        }
      },
    );
  });
}

export interface SidekiqServer {
  stop(): Promise<void>;
  log(): string;
}

/** A real Sidekiq server (`sidekiq -r ./worker.rb`), ready once its heartbeat lists it. Stopped by its PID. */
export async function startSidekiq(w: Interop, queues: string[]): Promise<SidekiqServer> {
  const child = spawn("sidekiq", ["-r", "./worker.rb", ...queues.flatMap((q) => ["-q", q]), "-c", "2", "-t", "1"], {
    cwd: FIXTURES,
    env: { ...process.env, REDIS_URL: w.url },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const keep = (d: Buffer) => void (log = (log + String(d)).slice(-20_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const atExit = () => void child.kill("SIGKILL");
  process.on("exit", atExit);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    process.off("exit", atExit);
  };
  for (let i = 0; i < 300; i++) {
    if ((await w.redis.smembers("processes")).some((m) => m.includes(`:${child.pid}:`)))
      return { stop, log: () => log };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  await stop();
  throw new Error(`sidekiq did not start:\n${log}`);
}

/** Waits until `check` returns a value (not undefined), up to `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error("timed out waiting");
    await sleep(100);
  }
}
