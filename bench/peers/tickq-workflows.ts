// tickq under the peers bench's workflow rows: the runs started with one startBulk call, then ticks of
// batch 100 back to back in this process until every run has completed, on a redis-server of its
// own (no persistence, or an append-only file fsynced on every write), stopped after. A lone run:
// tq.workflows.startAndWait, start to output in hand.
import { Redis } from "ioredis";
import { createTickq } from "../../src/index.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { commandsRun } from "../workflows.js";
import { startRedis } from "./servers.js";
import { checkSums, type WorkflowSystem } from "./workflow-system.js";

/** The bench's workflow as tickq declares it: `n` no-op steps, each answering its number, the run their sum. */
export const tenStepsWorkflow = {
  run: async (n: number, step: { run(name: string, fn: () => number): Promise<number> }): Promise<number> => {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += await step.run(`s${i}`, () => i);
    return sum;
  },
};

export async function tickqWorkflowSystem(fsyncAlways: boolean): Promise<WorkflowSystem> {
  const server = await startRedis(fsyncAlways);
  const client = new Redis(server.url);
  const probe = new Redis(server.url);
  const name = fsyncAlways ? "tickq, Redis appendfsync always" : "tickq, Redis without persistence";
  const prefix = "peers:";
  // one tickq for every round, as an app keeps one: the lone runs find it warm, as they find the peers
  const tq = createTickq({
    redis: ioredisAdapter(client),
    prefix,
    jobs: {},
    workflows: { tenSteps: tenStepsWorkflow },
  });
  let completed = 0;
  return {
    name,
    durability: fsyncAlways
      ? "Redis AOF, appendfsync always: every write fsynced"
      : "none: Redis with no AOF, no RDB (a crash loses it all)",
    async runMany(runs, steps) {
      completed += runs;
      // A run alone, as a caller who wants its output runs it: startAndWait's tick starts and claims it in
      // its begin and answers the output from the commit that ended it (one request fewer than startBulk and a tick).
      if (runs === 1) {
        const t = performance.now();
        const output = await tq.workflows.startAndWait("tenSteps", steps);
        const ms = performance.now() - t;
        checkSums(name, [output], steps);
        return { ms };
      }
      const before = await commandsRun(probe);
      const t = performance.now();
      const ids = await tq.workflows.startBulk(
        Array.from({ length: runs }, () => ({ name: "tenSteps", input: steps })),
      );
      let requests = 1;
      let checkCommands = 0;
      for (;;) {
        const report = await tq.tick({ budgetMs: 10_000, batch: 100 });
        requests += report.roundTrips;
        if (report.more) continue;
        const c0 = await commandsRun(probe);
        const done = (await tq.stats()).workflows.tenSteps!.completed >= completed;
        checkCommands += (await commandsRun(probe)) - c0;
        if (done) break;
      }
      const ms = performance.now() - t;
      const commands = (await commandsRun(probe)) - before - checkCommands;
      const sums = await Promise.all([ids[0]!, ids.at(-1)!].map(async (id) => (await tq.workflows.get(id))?.output));
      checkSums(name, sums, steps);
      return { ms, commandsPerStep: commands / (runs * steps), requestsPerStep: requests / (runs * steps) };
    },
    async close() {
      client.disconnect();
      probe.disconnect();
      await server.stop();
    },
  };
}
