// The fault injector: at random intervals, one fault of a random kind, until
// every kind was injected at least `perKind` times and the window is over.
// A kind that could not act (no traffic to drop, Redis restarting) is not
// counted and is tried again later. Kinds still short of `perKind` are
// picked first, so the counts come out even.
import type { Redis } from "ioredis";
import type { DropProxy } from "./drop-proxy.js";
import type { HttpDropProxy } from "./http-drop-proxy.js";
import type { PrivateRedis } from "./private-redis.js";
import { between, pick, sleep, type Rng } from "./rng.js";
import type { WorkerPool } from "./workers.js";

export const FAULT_KINDS = [
  "client-kill",
  "client-pause",
  "redis-restart",
  "worker-kill",
  "drop-tcp",
  "drop-http",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultCounts = Partial<Record<FaultKind, number>>;

/** The kinds a phase over this adapter injects: dropped HTTP responses only over HTTP. */
export const faultKindsOver = (adapter: "ioredis" | "upstash"): FaultKind[] =>
  FAULT_KINDS.filter((k) => k !== "drop-http" || adapter === "upstash");

/** A fault: resolves true if it was injected. */
export type Fault = () => Promise<boolean>;

export interface FaultTargets {
  /** A direct connection to the faulted Redis, skipped by its own CLIENT KILL. */
  admin: Redis;
  redis: PrivateRedis;
  workers: WorkerPool;
  tcp: DropProxy;
  /** Only over HTTP. */
  http?: HttpDropProxy;
  rng: Rng;
}

export function faultsFor(t: FaultTargets): Partial<Record<FaultKind, Fault>> {
  const attempt =
    (act: () => Promise<unknown>): Fault =>
    () =>
      act().then(
        () => true,
        () => false,
      );
  const faults: Partial<Record<FaultKind, Fault>> = {
    "client-kill": attempt(() => t.admin.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")),
    "client-pause": attempt(() => t.admin.call("CLIENT", "PAUSE", String(between(t.rng, 100, 800)), "ALL")),
    "redis-restart": attempt(() => t.redis.restart()),
    "worker-kill": async () => t.workers.killOne(t.rng),
    "drop-tcp": () => t.tcp.dropNextReply(2_000),
  };
  if (t.http) faults["drop-http"] = () => t.http!.dropNextResponse(2_000);
  return faults;
}

export interface InjectOptions {
  faults: Partial<Record<FaultKind, Fault>>;
  perKind: number;
  windowMs: number;
  rng: Rng;
  /** Gives up on reaching perKind after this long (a fault that can never act). */
  maxMs?: number;
  log?: (line: string) => void;
}

export async function injectFaults(o: InjectOptions): Promise<FaultCounts> {
  const kinds = Object.keys(o.faults) as FaultKind[];
  const counts: FaultCounts = Object.fromEntries(kinds.map((k) => [k, 0]));
  const meanMs = o.windowMs / Math.max(1, kinds.length * o.perKind);
  const started = Date.now();
  const maxMs = o.maxMs ?? o.windowMs * 3 + 30_000;
  for (;;) {
    const elapsed = Date.now() - started;
    const short = kinds.filter((k) => counts[k]! < o.perKind);
    if ((short.length === 0 && elapsed >= o.windowMs) || elapsed >= maxMs) break;
    await sleep(meanMs * (0.2 + 1.6 * o.rng()));
    const kind = pick(o.rng, short.length > 0 ? short : kinds);
    if (await o.faults[kind]!()) counts[kind]!++;
    o.log?.(`${kind} (${counts[kind]})`);
  }
  return counts;
}
