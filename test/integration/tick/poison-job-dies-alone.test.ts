// A job that kills its own tick (an out-of-memory or platform time-limit
// kill) must not take the jobs fetched with it down: only a job known to be
// running when its tick died is counted, the others run again (at most once
// more each), and the poison alone ends dead. Each round is a fresh process
// of ticks with the default batch and concurrency (test/fixtures/poison-child.ts).
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { adapterCases, describeOverAdapters, type AdapterCase } from "../../helpers/adapters.js";
import { fixtureArgs } from "../../helpers/fixture-bundle.js";
import { useHarness, type Harness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";
import { poisonJobs } from "../../fixtures/poison-jobs.js";

const LEASE_MS = 800;
const MAX_ROUNDS = 12;
// Each death costs a process: a limit of 1 keeps the test to seconds (the
// default, 3, runs in the fault suite: npm run chaos).
const MAX_RESURRECTIONS = 1;

/** Runs one tick process to its end; true when it was killed. */
function tickProcess(adapterCase: AdapterCase, prefix: string): Promise<{ killed: boolean; stderr: string }> {
  const child = spawn(process.execPath, fixtureArgs("poison-child.ts"), {
    env: {
      ...process.env,
      ADAPTER: adapterCase.name,
      PREFIX: prefix,
      LEASE_MS: String(LEASE_MS),
      ENDPOINTS: JSON.stringify(adapterCase.endpoints()),
      MAX_RESURRECTIONS: String(MAX_RESURRECTIONS),
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) =>
    child.once("exit", (_code, signal) => resolve({ killed: signal === "SIGKILL", stderr })),
  );
}

/** Fresh tick processes, each after the last one's lease, until no work is left. */
async function drain(h: Harness, adapterCase: AdapterCase, tq: ReturnType<typeof makeTickq>): Promise<number> {
  let deaths = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const t0 = Date.now();
    const { killed, stderr } = await tickProcess(adapterCase, h.prefix);
    if (process.env.POISON_TRACE) console.log(round, killed, Date.now() - t0);
    if (!killed) expect(stderr).toBe("");
    if (killed) {
      deaths++;
      await sleep(LEASE_MS + 100);
      continue;
    }
    const stats = await tq.stats();
    const queued = Object.values(stats.queues).reduce((a, b) => a + b, 0);
    if (queued === 0 && stats.inflight === 0 && stats.ticks === 0 && stats.ordered.item!.waiting === 0) return deaths;
  }
  throw new Error(`work left after ${MAX_ROUNDS} tick processes`);
}

const makeTickq = (h: Harness) =>
  h.make(poisonJobs(h.redis, h.prefix).jobs, {
    ordered: poisonJobs(h.redis, h.prefix).ordered,
    maxResurrections: MAX_RESURRECTIONS,
  });

async function runsOf(h: Harness): Promise<Map<string, number>> {
  const runs = new Map<string, number>();
  for (const run of await h.redis.lrange(`${h.prefix}test:runs`, 0, -1)) runs.set(run, (runs.get(run) ?? 0) + 1);
  return runs;
}

/** 49 plain jobs with a plain poison 11th (started after the tick's first call), 6 flow jobs and a flow poison, 20 ordered ids and an ordered poison. */
async function enqueueBatch(tq: ReturnType<typeof makeTickq>): Promise<string[]> {
  const plain = Array.from({ length: 49 }, (_, i) => `p${i}`);
  await tq.enqueueBulk(
    [...plain.slice(0, 10), "poison", ...plain.slice(10)].map((id) => ({
      name: "plain" as const,
      args: [id] as [string],
    })),
  );
  const flows = Array.from({ length: 6 }, (_, i) => `f${"x".repeat(i)}`);
  for (const id of [...flows.slice(0, 3), "poison", ...flows.slice(3)]) await tq.enqueue("flow", [id]);
  const ordered = Array.from({ length: 20 }, (_, i) => `o${i}`);
  for (const id of [...ordered.slice(0, 5), "poison", ...ordered.slice(5)])
    await tq.enqueueOrdered("item", { id, payload: 1, score: 1 });
  return [
    ...plain.map((id) => `plain:${id}`),
    ...flows.map((id) => `flow:${id}`),
    ...ordered.map((id) => `ordered:${id}`),
  ];
}

describeOverAdapters(
  adapterCases.filter((c) => c.name !== "upstash"),
  "a job that kills its tick, over $name",
  (adapterCase) => {
    const h = useHarness(adapterCase, "poison-batch");

    it("each poison job (plain, flow, ordered) goes dead alone; the jobs fetched with it run, each at most twice", {
      timeout: 90_000,
    }, async () => {
      const tq = makeTickq(h);
      const innocent = await enqueueBatch(tq);
      const deaths = await drain(h, adapterCase, tq);

      const runs = await runsOf(h);
      for (const job of innocent) {
        expect(runs.get(job), job).toBeGreaterThanOrEqual(1);
        expect(runs.get(job), job).toBeLessThanOrEqual(2);
      }
      // A death is counted only while the poison ran alone: one in a batch proves nothing.
      const poisonRuns = ["plain", "flow", "ordered"].map((kind) => runs.get(`${kind}:poison`) ?? 0);
      for (const n of poisonRuns) expect([MAX_RESURRECTIONS, MAX_RESURRECTIONS + 1]).toContain(n);
      expect(deaths).toBe(poisonRuns.reduce((a, b) => a + b, 0));

      const dead = [
        ...(await h.redis.zrange(`${h.prefix}dead`, "0", "-1")),
        ...(await h.redis.zrange(`${h.prefix}o:item:dead`, "0", "-1")),
      ];
      expect(dead).toHaveLength(3);
      for (const entry of dead) expect(entry).toMatch(/TickqPoisonJob.*died 1 times/);
      // Every innocent job ran and was acked once; no poison finished a run.
      expect(await tq.stats()).toMatchObject({ processed: innocent.length, failed: 0 });
    });
  },
);
