// Several tick processes of flow-controlled jobs (test/fixtures/flow-child.ts)
// for one test, and what they recorded: starts, jids done, the overlap
// detector's findings. Children are killed (SIGKILL) by the test's
// afterEach through stop(), never left running.
import { overlapDetector } from "../../bench/chaos/overlap.js";
import type { FlowStats } from "../../src/flow/types.js";
import type { Stats } from "../../src/stats/types.js";
import type { FlowName } from "../fixtures/flow-jobs.js";
import type { AdapterCase } from "./adapters.js";
import type { Harness } from "./harness.js";
import { sleep } from "./redis.js";
import { spawnTickChild, waitReady, type TickChild } from "./tick-children.js";

export interface FlowStart {
  jid: string;
  name: FlowName;
  key: string;
  attempt: number;
  fence?: number;
  pid: number;
  at: number;
  /** A rated job's start in the rate limit's log (Redis' clock, at fetch). */
  admittedAt?: number;
}

export interface FlowTicks {
  /** Starts `count` tick processes and waits until they are ready (they run once go() is called). */
  start(count: number, env?: Record<string, string>): Promise<void>;
  /** Lets the ready processes tick. */
  go(): Promise<void>;
  /** SIGKILLs one process at random and starts another in its place (it ticks at once). */
  killOne(): Promise<void>;
  /** SIGKILLs every process. */
  stop(): Promise<void>;
  stderr(): string;
}

export function flowTicks(adapterCase: AdapterCase, h: Harness, base: Record<string, string> = {}): FlowTicks {
  let children: TickChild[] = [];
  let env = base;
  const spawn = () => spawnTickChild("flow-child.ts", adapterCase, h.redis, h.prefix, { MODE: "run", ...env });
  return {
    async start(count, more = {}) {
      env = { ...base, ...more };
      children.push(...Array.from({ length: count }, spawn));
      await waitReady(h.redis, h.prefix, children.length);
    },
    go: async () => void (await h.redis.set(`${h.prefix}test:go`, "1")),
    async killOne() {
      const victim = Math.floor(Math.random() * children.length);
      await children[victim]!.kill();
      children[victim] = spawn();
    },
    async stop() {
      await Promise.all(children.map((c) => c.kill()));
      children = [];
    },
    stderr: () =>
      children
        .map((c) => c.stderr())
        .join("\n")
        .slice(-2_000),
  };
}

/** Waits until `count` jids are done (test:done); returns how many are. */
export async function waitDone(h: Harness, count: number, timeoutMs: number): Promise<number> {
  const done = () => h.redis.scard(`${h.prefix}test:done`);
  for (const until = Date.now() + timeoutMs; Date.now() < until && (await done()) < count; ) await sleep(100);
  return done();
}

export async function readStarts(h: Harness): Promise<FlowStart[]> {
  return (await h.redis.lrange(`${h.prefix}test:starts`, 0, -1)).map((s) => JSON.parse(s) as FlowStart);
}

export const doneJids = (h: Harness) => h.redis.smembers(`${h.prefix}test:done`);

/** What the children's overlap detector saw: overlaps in words, the most live holders per "NAME:KEY". */
export const readOverlaps = (h: Harness) => overlapDetector(h.redis, `${h.prefix}test:`).read();

/**
 * Waits until flow control holds nothing for `name` (no slot held, none
 * parked, none deferred): the holders acked, dead ticks' slots were freed.
 * Returns the last stats seen for it.
 */
export async function waitFlowIdle(
  tq: { stats(): Promise<Stats> },
  name: FlowName,
  timeoutMs: number,
): Promise<FlowStats | undefined> {
  let last: FlowStats | undefined;
  for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(100)) {
    last = (await tq.stats()).flow[name];
    if (last && last.locksHeld + last.waiting + last.deferred === 0) break;
  }
  return last;
}
