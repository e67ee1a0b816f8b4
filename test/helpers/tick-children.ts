// Tick processes for the tests that SIGKILL ticks: a fixture of
// test/fixtures/ (ordered-child.ts: ordered jobs; flow-child.ts: flow-
// controlled jobs) spawned over the test's adapter and prefix, killed by
// PID. A killed PID is noted first (test:killed) for tests that count kills.
import { spawn } from "node:child_process";
import type { Redis } from "ioredis";
import type { AdapterCase } from "./adapters.js";
import { fixtureArgs } from "./fixture-bundle.js";
import { sleep } from "./redis.js";

export type TickFixture = "ordered-child.ts" | "flow-child.ts" | "workflow-child.ts";

export interface TickChild {
  pid: number;
  /** Notes the PID as killed, then SIGKILLs it; resolves once it exited. */
  kill(): Promise<void>;
  stderr(): string;
}

export function spawnTickChild(
  fixture: TickFixture,
  adapterCase: AdapterCase,
  redis: Redis,
  prefix: string,
  env: Record<string, string>,
): TickChild {
  const child = spawn(process.execPath, fixtureArgs(fixture), {
    env: {
      ...process.env,
      ADAPTER: adapterCase.name,
      PREFIX: prefix,
      ENDPOINTS: JSON.stringify(adapterCase.endpoints()),
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    pid: child.pid!,
    async kill() {
      await redis.sadd(`${prefix}test:killed`, String(child.pid));
      child.kill("SIGKILL");
      await exited;
    },
    stderr: () => stderr,
  };
}

/** Waits until `count` children said they are ready (test:ready). */
export async function waitReady(redis: Redis, prefix: string, count: number, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while ((await redis.scard(`${prefix}test:ready`)) < count) {
    if (Date.now() > until)
      throw new Error(`only ${await redis.scard(`${prefix}test:ready`)} of ${count} tick processes started`);
    await sleep(50);
  }
}

/**
 * Waits until no tick registered under `prefix` holds its lease: a killed tick's lease runs out a lease
 * after its last extend reached Redis, and over HTTP an extend sent before the kill may reach it after.
 */
export async function waitLeasesGone(redis: Redis, prefix: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ids = await redis.hkeys(`${prefix}ticks`);
    const held = ids.length === 0 ? 0 : await redis.exists(...ids.map((id) => `${prefix}tick:${id}`));
    if (held === 0) return;
    if (Date.now() > until) throw new Error(`${held} tick leases still held after ${timeoutMs} ms`);
    await sleep(20);
  }
}
