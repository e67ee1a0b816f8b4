// The ordered-jobs part of `npm run bench`: 100,000 payloads over 1,000
// ids, drained by ticks (batch 100), three ways:
//   merged   every payload enqueued first (bulk), then drained: each id runs
//            once with its ~100 payloads; payloads/s is the figure that counts
//   one each the payloads come in waves of one per id, each wave drained
//            before the next: every execution carries one payload, so
//            executions/s compares with a plain drain's jobs/s
//   capped   every payload enqueued first (bulk, as merged), to a definition
//            with maxPayloads: 1, then drained: one payload an execution, per-id
//            FIFO as groupmq or SQS FIFO groups give it; each id's payloads are
//            checked to run one at a time, in enqueue order
// Round trips per execution come from the ticks' reports; Redis commands
// per execution (the drain) and per payload enqueued from INFO commandstats
// (inside scripts included), and the two summed a payload: with one payload
// each, what an ordered job costs in all (the figure docs/benchmarks.md and
// docs/guides/ordered.md quote).
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { createTickq, type OrderedContext } from "../src/index.js";
import { commandsProcessed } from "./wire.js";

export type OrderedScenario = "merged" | "one each" | "capped";

export interface OrderedBenchOptions {
  redisUrl: string;
  payloads: number;
  ids: number;
  runs: number;
  batch: number;
  /** The scenarios measured (default all three), in this order. */
  scenarios?: OrderedScenario[];
}

export interface OrderedRow {
  scenario: OrderedScenario;
  enqueue: number[];
  executions: number[];
  payloads: number[];
  roundTripsPerExecution: number;
  commandsPerExecution: number;
  /** Redis commands an enqueued payload costs (bulk calls, scripts' insides included). */
  commandsPerPayloadEnqueued: number;
  /** What a payload costs in all, enqueue and its share of the drain: with one payload each, what a job costs. */
  commandsPerPayload: number;
}

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);

export async function measureOrdered(o: OrderedBenchOptions): Promise<OrderedRow[]> {
  const redis = new Redis(o.redisUrl);
  const probe = new Redis(o.redisUrl);
  const prefix = `bench:ordered-${Date.now()}:`;
  let executed = 0;
  let seen = 0;
  // The capped scenario's check: per id, the last wave run and whether a run of it is live.
  const lastWave = new Map<string, number>();
  const live = new Set<string>();
  const capped = async (id: string, payloads: { w: number; i: number }[], _ctx: OrderedContext) => {
    if (payloads.length !== 1 || live.has(id) || (lastWave.get(id) ?? -1) >= payloads[0]!.w)
      throw new Error(`capped: ${id} ran ${JSON.stringify(payloads)} after wave ${lastWave.get(id)}, or overlapping`);
    live.add(id);
    lastWave.set(id, payloads[0]!.w);
    executed += 1;
    seen += 1;
    live.delete(id);
  };
  const tq = createTickq({
    redis: ioredisAdapter(redis),
    prefix,
    jobs: {},
    ordered: {
      index: {
        perform: (_id: string, payloads: unknown[], _ctx: OrderedContext) =>
          void ((executed += 1), (seen += payloads.length)),
      },
      // retry: false, so a failed check shows as a dead entry and the drain comes up short
      capped: { perform: capped, maxPayloads: 1, retry: false },
    },
  });
  const drain = async (payloads: number) => {
    let trips = 0;
    while (seen < payloads) {
      const report = await tq.tick({ batch: o.batch, concurrency: o.batch, budgetMs: 60_000 });
      trips += report.roundTrips;
      if (report.fetched === 0 && !report.more)
        throw new Error(`ordered bench drained ${seen} of ${payloads} payloads`);
    }
    return trips;
  };
  const wave = (w: number, name: "index" | "capped" = "index") =>
    Array.from({ length: o.ids }, (_, i) => ({ name, id: `id-${i}`, payload: { w, i } }));
  const rows: OrderedRow[] = (o.scenarios ?? ["merged", "one each", "capped"]).map((scenario) => ({
    scenario,
    enqueue: [],
    executions: [],
    payloads: [],
    roundTripsPerExecution: 0,
    commandsPerExecution: 0,
    commandsPerPayloadEnqueued: 0,
    commandsPerPayload: 0,
  }));
  try {
    await tq.enqueueOrderedBulk(wave(0)); // warm-up, unmeasured
    executed = seen = 0;
    await drain(o.ids);
    if (rows.some((r) => r.scenario === "capped")) {
      await tq.enqueueOrderedBulk([...wave(0, "capped"), ...wave(1, "capped")]);
      executed = seen = 0;
      await drain(2 * o.ids);
    }
    for (let run = 0; run < o.runs; run++) {
      for (const row of rows) {
        executed = seen = 0;
        lastWave.clear();
        // k: 0 enqueues every payload first (merged, capped), 1 a wave at a time (one each).
        const k = row.scenario === "one each" ? 1 : 0;
        const name = row.scenario === "capped" ? "capped" : "index";
        const waves = Math.ceil(o.payloads / o.ids);
        let enqueueMs = 0;
        let drainMs = 0;
        let trips = 0;
        const before = await commandsProcessed(probe);
        let enqueueCommands = 0;
        for (let w = 0; w < (k === 0 ? 1 : waves); w++) {
          const c0 = await commandsProcessed(probe);
          let t = performance.now();
          if (k === 0)
            for (let b = 0; b < waves; b += 10)
              await tq.enqueueOrderedBulk(
                Array.from({ length: Math.min(10, waves - b) }, (_, j) => wave(b + j, name)).flat(),
              );
          else await tq.enqueueOrderedBulk(wave(w));
          enqueueMs += performance.now() - t;
          enqueueCommands += (await commandsProcessed(probe)) - c0 - 1 + 2; // and the two INFO calls of this wave
          t = performance.now();
          trips += await drain(k === 0 ? o.payloads : (w + 1) * o.ids);
          drainMs += performance.now() - t;
        }
        row.enqueue.push(rate(o.payloads, enqueueMs));
        row.executions.push(rate(executed, drainMs));
        row.payloads.push(rate(seen, drainMs));
        if (run === 0) {
          row.roundTripsPerExecution = trips / executed;
          row.commandsPerExecution = ((await commandsProcessed(probe)) - before - enqueueCommands - 1) / executed;
          row.commandsPerPayloadEnqueued = (enqueueCommands - 2 * (k === 0 ? 1 : waves)) / o.payloads;
          row.commandsPerPayload = row.commandsPerPayloadEnqueued + (row.commandsPerExecution * executed) / seen;
        }
      }
    }
  } finally {
    const keys = await probe.keys(`${prefix}*`);
    for (let i = 0; i < keys.length; i += 1_000) await probe.del(...keys.slice(i, i + 1_000));
    redis.disconnect();
    probe.disconnect();
  }
  return rows;
}

/** Prints the rows, and executions/s against a plain drain's jobs/s when one was measured in the same run. */
export function printOrdered(
  o: OrderedBenchOptions,
  rows: OrderedRow[],
  yardstick?: { name: string; jobsPerSec: number },
): void {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`\nOrdered jobs: ${o.payloads} payloads over ${o.ids} ids, batch ${o.batch}, ${o.runs} runs each`);
  console.table(
    rows.map((r) => ({
      scenario: r.scenario,
      "enqueue payloads/s (bulk)": median(r.enqueue),
      "executions/s (median)": median(r.executions),
      "payloads/s drained": median(r.payloads),
      "round trips/execution": r.roundTripsPerExecution.toFixed(4),
      "Redis cmds/execution": r.commandsPerExecution.toFixed(2),
      "Redis cmds/payload enqueued": r.commandsPerPayloadEnqueued.toFixed(2),
      "Redis cmds/payload, enqueue + drain": r.commandsPerPayload.toFixed(2),
    })),
  );
  if (!yardstick) return;
  for (const r of rows) {
    console.log(
      `ordered ${r.scenario}: executions/s / ${yardstick.name} plain jobs/s: ${(median(r.executions) / yardstick.jobsPerSec).toFixed(2)}×`,
    );
  }
}

// Alone, on a private Redis: npx tsx bench/ordered.ts [--payloads 100000 --ids 1000 --runs 3]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      payloads: { type: "string", default: "100000" },
      ids: { type: "string", default: "1000" },
      runs: { type: "string", default: "3" },
    },
  });
  const { startPrivate } = await import("../src/platforms/node/find-redis.js");
  const server = await startPrivate();
  const o = {
    redisUrl: server.url,
    payloads: Number(values.payloads),
    ids: Number(values.ids),
    runs: Number(values.runs),
    batch: 100,
  };
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  console.log(`load average at start ${load()}`);
  printOrdered(o, await measureOrdered(o));
  console.log(`load average at end ${load()}`);
  await server.stop();
}
