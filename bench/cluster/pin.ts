// Pins the bench process and its Redis processes to CPUs (Linux, taskset),
// so the ticks' core is never taken by a Redis process: a difference left in
// the client's CPU a job is then its own work, not the cost of sharing a core
// (and its caches) with one Redis or three.
import { spawnSync } from "node:child_process";
import { Redis } from "ioredis";

/** Puts a process, every thread of it, on one CPU. */
export function pin(pid: number, cpu: number): void {
  const done = spawnSync("taskset", ["-a", "-pc", String(cpu), String(pid)]);
  if (done.status !== 0) throw new Error(`taskset ${pid}: ${done.stderr}`);
}

/** This process on CPU 0, the Redis servers at `ports` (local) on CPU 1. */
export async function pinApart(ports: number[]): Promise<void> {
  pin(process.pid, 0);
  for (const port of ports) {
    const redis = new Redis({ port, host: "127.0.0.1" });
    try {
      pin(Number(/^process_id:(\d+)/m.exec(await redis.info("server"))?.[1]), 1);
    } finally {
      redis.disconnect();
    }
  }
}
