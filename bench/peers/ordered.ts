// The ordered row of the peers bench: PAYLOADS payloads over IDS ids, one payload per execution,
// enqueue included, on one Redis, in alternating rounds.
//   tickq    bench/ordered.ts's "one each": waves of one payload per id, each wave enqueued in bulk
//            and drained (ticks of batch 100) before the next, so no payloads merge; its time is the
//            waves' enqueue and drain summed, its commands a job what a payload costs in all
//   tickq capped  bench/ordered.ts's "capped": every payload enqueued at once in bulk (as groupmq gets
//            them) to a definition with maxPayloads: 1, then drained (ticks of batch 100): one payload
//            an execution, each id's checked to run one at a time and in order; its time is the
//            enqueue and the drain summed
//   groupmq  every payload added at once (its autoBatch on: adds pipelined) to a queue whose Worker
//            (concurrency 50) runs from before the first add: one job of a group at a time, in order;
//            timed from the first add to the last completion, commands counted over the same span
import { Redis as PeerRedis } from "ioredis";
import { Queue, Worker } from "groupmq";
import { alternate, median, spread } from "../alternating.js";
import { measureOrdered } from "../ordered.js";
import { commandsProcessed } from "../wire.js";

/** A client of the root's ioredis, which INFO is read through. */
type Probe = Parameters<typeof commandsProcessed>[0];

export interface OrderedRowOptions {
  payloads: number;
  ids: number;
  rounds: number;
}

interface Sample {
  rate: number;
  commandsPerJob: number;
}

type Variant = "tickq" | "tickq capped" | "groupmq";

async function tickqRound(
  url: string,
  payloads: number,
  ids: number,
  scenario: "one each" | "capped",
): Promise<Sample> {
  const [one] = await measureOrdered({ redisUrl: url, payloads, ids, runs: 1, batch: 100, scenarios: [scenario] });
  if (one === undefined) throw new Error(`no ${scenario} row`);
  // every execution carries one payload: the time is payloads ÷ enqueue rate + payloads ÷ execution rate
  const seconds = payloads / one.enqueue[0]! + payloads / one.executions[0]!;
  return { rate: payloads / seconds, commandsPerJob: one.commandsPerPayload };
}

async function groupmqRound(url: string, probe: Probe, payloads: number, ids: number, round: number): Promise<Sample> {
  const redis = new PeerRedis(url, { maxRetriesPerRequest: null });
  const namespace = `peers-${Date.now()}-${round}`;
  const queue = new Queue<{ w: number; i: number }>({ redis, namespace, keepCompleted: 0, autoBatch: true });
  const last = new Map<string, number>();
  let done = 0;
  let finished!: () => void;
  let failed!: (error: Error) => void;
  const all = new Promise<void>((resolve, reject) => ((finished = resolve), (failed = reject)));
  const worker = new Worker<{ w: number; i: number }>({
    queue,
    concurrency: 50,
    handler: async (job) => {
      // per-group FIFO is what this row compares: a payload out of order fails the bench
      const group = `id-${job.data.i}`;
      if ((last.get(group) ?? -1) >= job.data.w) throw new Error(`groupmq ran ${group} out of order`);
      last.set(group, job.data.w);
    },
  });
  worker.on("completed", () => ++done === payloads && finished());
  worker.on("failed", (job) => failed(new Error(`groupmq: a job failed: ${job.failedReason}`)));
  try {
    const waves = Math.ceil(payloads / ids);
    const before = await commandsProcessed(probe);
    const t = performance.now();
    const adds: Promise<unknown>[] = [];
    for (let w = 0; w < waves; w++)
      for (let i = 0; i < ids && w * ids + i < payloads; i++)
        adds.push(queue.add({ groupId: `id-${i}`, data: { w, i } }));
    await Promise.all(adds);
    await all;
    const ms = performance.now() - t;
    return { rate: (payloads * 1000) / ms, commandsPerJob: ((await commandsProcessed(probe)) - before - 1) / payloads };
  } finally {
    await worker.close();
    await queue.close();
    const keys = await probe.keys(`groupmq:${namespace}:*`);
    for (let i = 0; i < keys.length; i += 1_000) await probe.del(...keys.slice(i, i + 1_000));
    redis.disconnect();
  }
}

export async function runOrderedRow(url: string, probe: Probe, o: OrderedRowOptions): Promise<void> {
  const samples = await alternate<Variant, Sample>({
    variants: ["tickq", "tickq capped", "groupmq"],
    rounds: o.rounds,
    jobs: o.payloads,
    drain: (v, payloads, round) =>
      v === "groupmq"
        ? groupmqRound(url, probe, payloads, Math.min(o.ids, payloads), round)
        : tickqRound(url, payloads, Math.min(o.ids, payloads), v === "tickq" ? "one each" : "capped"),
  });
  const of = (v: Variant) => samples.get(v)!;
  console.log(
    `\nOrdered jobs: ${o.payloads} payloads over ${o.ids} ids, one payload per execution, enqueue included; ` +
      `${o.rounds} alternating rounds (after a warm-up of ${Math.ceil(o.payloads / 10)} each)`,
  );
  console.table(
    (["tickq", "tickq capped", "groupmq"] as const).map((v) => ({
      system: {
        tickq: "tickq (waves of one payload an id, batch 100)",
        "tickq capped": "tickq (all at once, maxPayloads 1, batch 100)",
        groupmq: "groupmq (Worker concurrency 50)",
      }[v],
      "jobs/s (median)": Math.round(median(of(v).map((x) => x.rate))),
      "min–max": spread(of(v).map((x) => x.rate)),
      "Redis cmds/job": median(of(v).map((x) => x.commandsPerJob)).toFixed(2),
    })),
  );
  for (const v of ["tickq", "tickq capped"] as const) {
    const ratios = of(v).map((x, r) => x.rate / of("groupmq")[r]!.rate);
    console.log(`${v} ÷ groupmq: ${median(ratios).toFixed(2)}× (rounds ${spread(ratios, 2)}×)`);
  }
}
