// The harness of the cost benchmarks (results, expiry, cancel, metrics, order, debounce
// promotion): every variant drains in turn, round after round, the order reversed every other
// round, so the load of other processes on a shared machine moves each variant alike; a warm-up
// drain of a tenth of the jobs per variant first (JIT, connections, scripts loaded). Medians, not
// means: one slow round on a busy machine should not move the figure.
import { Redis } from "ioredis";
import * as here from "../src/index.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import type { RateAndScript } from "./noops.js";

export interface Alternation<V, S> {
  variants: readonly V[];
  rounds: number;
  /** Jobs per drain; the warm-up drains a tenth of them. */
  jobs: number;
  /** One drain of `jobs` jobs by `variant` (round -1: the warm-up), leaving Redis as it found it. */
  drain: (variant: V, jobs: number, round: number) => Promise<S>;
}

/** Every variant's samples, one per round, in the order of its rounds. */
export async function alternate<V, S>(a: Alternation<V, S>): Promise<Map<V, S[]>> {
  const samples = new Map(a.variants.map((v) => [v, [] as S[]]));
  for (const v of a.variants) await a.drain(v, Math.ceil(a.jobs / 10), -1);
  for (let round = 0; round < a.rounds; round++) {
    for (const v of round % 2 === 0 ? a.variants : [...a.variants].reverse()) {
      samples.get(v)!.push(await a.drain(v, a.jobs, round));
    }
  }
  return samples;
}

export const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** "min–max" of the samples, with `digits` decimals. */
export const spread = (xs: readonly number[], digits = 0) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** `x` as a percentage of `base`, with `digits` decimals. */
export const percentOf = (x: number, base: number, digits: number) => `${((x / base) * 100).toFixed(digits)} %`;

/**
 * Alternates no-op drains on the private Redis at `url` and prints each variant's drain rate and
 * Redis script µs per job against the first variant's (the plain one).
 */
export async function printAgainstPlain<V extends { label: string }>(
  url: string,
  batch: number,
  a: Alternation<V, RateAndScript>,
): Promise<void> {
  console.log(
    `private Redis ${url}; ${a.jobs} no-op jobs per drain, batch ${batch}, ${a.rounds} rounds, variants interleaved`,
  );
  const samples = await alternate(a);
  const rates = (v: V) => samples.get(v)!.map((s) => s.rate);
  const usecs = (v: V) => samples.get(v)!.map((s) => s.usecPerJob);
  const plain = median(rates(a.variants[0]!));
  const plainUsec = median(usecs(a.variants[0]!));
  console.table(
    a.variants.map((v) => ({
      variant: v.label,
      "drain jobs/s (median)": Math.round(median(rates(v))),
      "min–max": spread(rates(v)),
      "vs plain": percentOf(median(rates(v)), plain, 1),
      "Redis script µs/job": median(usecs(v)).toFixed(2),
      "µs vs plain": percentOf(median(usecs(v)), plainUsec, 0),
    })),
  );
}

/** What a bench needs of a checkout of tickq. */
export type Build = Pick<typeof here, "createTickq">;

/** This tree and, given `--compare <checkout>/src/index.ts`, that other checkout: the cost a change adds, measured side by side. */
export async function builds(compare: string | undefined): Promise<{ label: string; build: Build }[]> {
  const trees = [{ label: "this tree", build: here as Build }];
  if (compare) trees.push({ label: "--compare tree", build: (await import(compare)) as Build });
  return trees;
}

/** Runs `bench` on a private redis-server of its own (INFO then counts this bench's commands alone), stopped after. */
export async function onPrivateRedis<T>(bench: (redis: Redis, url: string) => Promise<T>): Promise<T> {
  const server = await startPrivate();
  const redis = new Redis(server.url);
  try {
    return await bench(redis, server.url);
  } finally {
    redis.disconnect();
    await server.stop();
  }
}
