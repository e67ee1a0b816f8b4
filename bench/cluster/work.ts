// What one Redis process did between two readings, from INFO commandstats
// and INFO cpu: the scaling bench's per-node measure (bench/cluster-scaling.ts).
// CPU time and command counts are what a loaded machine moves least; Lua
// `usec` is wall time inside Redis, which a descheduled process stretches.
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";

export interface NodeWork {
  port: number;
  /** Commands, those run inside scripts included. */
  calls: number;
  /** EVALSHA + EVAL calls: the scripts. */
  scriptCalls: number;
  /** EVALSHA + EVAL usec: the scripts and the commands in them. */
  luaUsec: number;
  /** used_cpu_user + used_cpu_sys, ms. */
  cpuMs: number;
  /**
   * Time the process was runnable but waiting for a core, ms (Linux' /proc/PID/schedstat; 0
   * elsewhere): what stretches Lua time beyond CPU time on a loaded machine.
   */
  waitMs: number;
}

/** The run-queue wait of a local process so far, ms; 0 when /proc does not say. */
function runQueueWaitMs(pid: number): number {
  try {
    const [, wait] = readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ");
    return Number(wait) / 1e6 || 0;
  } catch {
    return 0;
  }
}

export async function workOf(port: number): Promise<NodeWork> {
  const redis = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
  try {
    const [commands, cpu, server] = await Promise.all([
      redis.info("commandstats"),
      redis.info("cpu"),
      redis.info("server"),
    ]);
    const pid = Number(/^process_id:(\d+)/m.exec(server)?.[1] ?? 0);
    const work: NodeWork = { port, calls: 0, scriptCalls: 0, luaUsec: 0, cpuMs: 0, waitMs: runQueueWaitMs(pid) };
    for (const m of commands.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
      // The bench's own INFO calls are not the drain's work.
      if (m[1] === "info") continue;
      work.calls += Number(m[2]);
      if (m[1] === "evalsha" || m[1] === "eval") {
        work.scriptCalls += Number(m[2]);
        work.luaUsec += Number(m[3]);
      }
    }
    const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(cpu)?.[1] ?? 0);
    work.cpuMs = (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1_000;
    return work;
  } finally {
    redis.disconnect();
  }
}

export const minus = (a: NodeWork, b: NodeWork): NodeWork => ({
  port: a.port,
  calls: a.calls - b.calls,
  scriptCalls: a.scriptCalls - b.scriptCalls,
  luaUsec: a.luaUsec - b.luaUsec,
  cpuMs: a.cpuMs - b.cpuMs,
  waitMs: a.waitMs - b.waitMs,
});

export const plus = (a: NodeWork, b: NodeWork): NodeWork => ({
  port: a.port,
  calls: a.calls + b.calls,
  scriptCalls: a.scriptCalls + b.scriptCalls,
  luaUsec: a.luaUsec + b.luaUsec,
  cpuMs: a.cpuMs + b.cpuMs,
  waitMs: a.waitMs + b.waitMs,
});

/** One drain of `jobs` jobs on one layout. */
export interface Run {
  label: string;
  jobs: number;
  rate: number;
  nodes: NodeWork[];
  /** CPU of the bench process (the ticks and the client) per job, µs. */
  clientCpuUsPerJob: number;
  /** Redis calls the ticks made (TickReport.roundTrips) per job. */
  tripsPerJob: number;
  /** 1-minute load average as the drain ended. */
  load: number;
}
