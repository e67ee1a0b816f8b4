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
  /** Bytes clients sent it and it sent clients (INFO stats total_net_input_bytes, total_net_output_bytes). */
  bytesIn: number;
  bytesOut: number;
  /** Times the process slept waiting for work (voluntary context switches, Linux): each woken by a client's write. */
  sleeps: number;
}

/** Voluntary context switches of a local process so far; 0 when /proc does not say. */
function sleepsOf(pid: number): number {
  try {
    return Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The run-queue wait of a local process so far, ms; 0 when /proc does not say. */
export function runQueueWaitMs(pid: number): number {
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
    const [commands, cpu, server, stats] = await Promise.all([
      redis.info("commandstats"),
      redis.info("cpu"),
      redis.info("server"),
      redis.info("stats"),
    ]);
    const pid = Number(/^process_id:(\d+)/m.exec(server)?.[1] ?? 0);
    const bytes = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(stats)?.[1] ?? 0);
    const work: NodeWork = {
      port,
      calls: 0,
      scriptCalls: 0,
      luaUsec: 0,
      cpuMs: 0,
      waitMs: runQueueWaitMs(pid),
      bytesIn: bytes("total_net_input_bytes"),
      bytesOut: bytes("total_net_output_bytes"),
      sleeps: sleepsOf(pid),
    };
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
  bytesIn: a.bytesIn - b.bytesIn,
  bytesOut: a.bytesOut - b.bytesOut,
  sleeps: a.sleeps - b.sleeps,
});

export const plus = (a: NodeWork, b: NodeWork): NodeWork => ({
  port: a.port,
  calls: a.calls + b.calls,
  scriptCalls: a.scriptCalls + b.scriptCalls,
  luaUsec: a.luaUsec + b.luaUsec,
  cpuMs: a.cpuMs + b.cpuMs,
  waitMs: a.waitMs + b.waitMs,
  bytesIn: a.bytesIn + b.bytesIn,
  bytesOut: a.bytesOut + b.bytesOut,
  sleeps: a.sleeps + b.sleeps,
});

/** One drain of `jobs` jobs on one layout. */
export interface Run {
  label: string;
  jobs: number;
  rate: number;
  nodes: NodeWork[];
  /** CPU of the bench process (the ticks and the client) per job, µs. */
  clientCpuUsPerJob: number;
  /** The part of it spent collecting garbage (PerformanceObserver "gc" entries), µs a job. */
  clientGcUsPerJob: number;
  /**
   * Time the bench process's main thread was runnable but waiting for a core, µs a job
   * (/proc/PID/schedstat): on 2 cores, a Redis it wakes with a write often takes its core.
   */
  clientWaitUsPerJob: number;
  /** Full (mark-compact) collections a million jobs: what jobs that live long enough to be promoted cost. */
  majorGcsPerMJob: number;
  /** The part of it spent in the kernel (system time: socket writes and reads, waking Redis). */
  clientSysUsPerJob: number;
  /** Redis calls the ticks made (TickReport.roundTrips) per job. */
  tripsPerJob: number;
  /**
   * The bench process's context switches per 1,000 jobs (process.resourceUsage): voluntary (it
   * waited for Redis) and involuntary (another process took its core, leaving its caches colder).
   */
  switchesPerKJob: { voluntary: number; involuntary: number };
  /** 1-minute load average as the drain ended. */
  load: number;
}
