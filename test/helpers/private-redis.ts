// A redis-server of the test's own: a free port, its own temporary folder,
// no persistence (`--save "" --appendonly no`). For suites that must own
// every key (Sidekiq's prefix is "", no namespace). stop() ends it by its PID
// and removes the folder; an exit hook does the same if the run dies first.
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { answers, freePort } from "../../src/platforms/node/find-redis.js";

// Free of vitest, so scripts outside the test runner can start one too.
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
}

/** `extraArgs`: more redis-server options, such as `--rename-command OBJECT ""` (a Redis that refuses a command). */
export async function startPrivateRedis(extraArgs: string[] = []): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "tickq-private-redis-"));
  const child: ChildProcess = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      "no",
      "--daemonize",
      "no",
      ...extraArgs,
    ],
    { stdio: "ignore" },
  );
  const atExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  // First of the exit listeners: vitest's, on SIGINT or SIGTERM, calls process.exit() again from its own.
  process.prependListener("exit", atExit);
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("spawn", resolve);
  });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 200 && !(await answers(url, 200)); i++) await sleep(25);
  if (!(await answers(url))) {
    // Stopped here, not left to the exit hook: a vitest worker can outlive the file by the whole run.
    process.removeListener("exit", atExit);
    atExit();
    throw new Error(`private redis-server on port ${port} does not answer`);
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
      }
      process.off("exit", atExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
