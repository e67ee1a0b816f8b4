// The Redis the chaos run faults: its own port and folder, every write
// fsynced to the AOF before it is answered (`appendfsync always`), no RDB.
// restart() SIGKILLs it and starts it again on the same port and folder, so
// it comes back with exactly what it had acknowledged. The rollback phase
// starts one with `appendfsync everysec` and, between the kill and the
// start, cuts the AOF back to what a crash would have left on disk
// (bench/chaos/rollback-redis.ts).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { setPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { answers, freePort } from "../../src/platforms/node/find-redis.js";
import { sleep } from "./rng.js";

export interface PrivateRedis {
  url: string;
  port: number;
  dir: string;
  pid(): number | undefined;
  /** SIGKILL, then (`whileDown`, e.g. to cut the AOF) start again from the AOF; resolves once it answers PING. */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /** SIGTERM by PID (SIGKILL if it lingers), then removes the folder. */
  stop(): Promise<void>;
}

export type AppendFsync = "always" | "everysec";

/**
 * A loopback redis-server on `port` that keeps every write in an AOF under `dir`, fsynced at once: a SIGKILL
 * loses nothing acknowledged. With `everysec`, fsynced once a second, and never rewritten (the rollback
 * phase cuts its one growing file).
 */
export function durableRedisArgs(port: number, dir: string, fsync: AppendFsync = "always"): string[] {
  const everysec = fsync === "everysec" ? ["--auto-aof-rewrite-percentage", "0"] : [];
  return [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--appendonly",
    "yes",
    "--appendfsync",
    fsync,
    ...everysec,
    "--save",
    "",
    "--daemonize",
    "no",
  ];
}

/**
 * Runs the server ahead of the run's workers, drivers and proxies, which share the machine's cores with it: a
 * script's time in SLOWLOG is then the script's, not the time the kernel gave a worker mid-script (at a load of
 * 14 on 2 cores, a 2 ms script read up to 89 ms at nice -10, and at most 2.4 ms under SCHED_FIFO). A production
 * Redis has cores of its own. Real-time first (`chrt`, the kernel still keeps 5 % of each second for the rest),
 * else nice -10, else (no privilege) as it was: SLOWLOG figures then include waits for a core.
 */
function raisePriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    execFileSync("chrt", ["-f", "-p", "10", String(pid)], { stdio: "ignore" });
    return;
  } catch {
    // No chrt, or no privilege for a real-time policy.
  }
  try {
    setPriority(pid, -10);
  } catch {
    // Unprivileged.
  }
}

export async function startPrivateRedis(options: { appendfsync?: AppendFsync } = {}): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "tickq-chaos-"));
  const url = `redis://127.0.0.1:${port}`;
  const args = durableRedisArgs(port, dir, options.appendfsync);
  let child: ChildProcess | undefined;
  // If the driver dies first: no orphan redis-server, no folder left behind.
  const killAtExit = () => {
    if (child?.pid && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  // First of the exit listeners: vitest's, on SIGINT or SIGTERM, calls process.exit() again from its own.
  process.prependListener("exit", killAtExit);

  const launch = async () => {
    child = spawn("redis-server", args, { stdio: "ignore" });
    child.on("error", () => {});
    await new Promise<void>((resolve, reject) => {
      child!.once("error", reject);
      child!.once("spawn", resolve);
    });
    raisePriority(child.pid);
    for (let i = 0; i < 200; i++) {
      if (await answers(url, 200)) return;
      await sleep(25);
    }
    throw new Error(`redis-server on port ${port} does not answer`);
  };
  const halt = async (signal: NodeJS.Signals) => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => c.once("exit", () => resolve()));
    c.kill(signal);
    const timer = setTimeout(() => c.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };

  await launch();
  return {
    url,
    port,
    dir,
    pid: () => child?.pid,
    restart: async (whileDown) => {
      await halt("SIGKILL");
      await whileDown?.();
      await launch();
    },
    stop: async () => {
      await halt("SIGTERM");
      process.off("exit", killAtExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
