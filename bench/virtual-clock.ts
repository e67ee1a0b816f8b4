// How long the testing guide's workflow test takes (docs/guides/testing.md#how-fast): a run
// that sleeps 3 days and waits up to 7 days for an event, driven by tickq/testing's virtual
// clock — createTestTickq, start, advance("3d"), advance("2d"), sendEvent, completed, close —
// repeated on the Redis at REDIS_URL (default 127.0.0.1:6379), over ioredis.
//   npx tsx bench/virtual-clock.ts --runs 30
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { defineWorkflow } from "../src/index.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { createTestTickq } from "../src/testing/index.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "30" } } });
const RUNS = Number(values.runs);
const client = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const redis = ioredisAdapter(client);

const trial = defineWorkflow({
  run: async (input: { userId: string }, step) => {
    await step.sleep("trial", "3d");
    const paid = await step.waitForEvent<{ plan: string }>("paid", {
      event: "invoice.paid",
      match: input.userId,
      timeout: "7d",
    });
    return paid ? `upgraded to ${paid.plan}` : "trial ended";
  },
});

async function once(): Promise<number> {
  const started = performance.now();
  const { tq, clock, runUntilIdle, close } = await createTestTickq({ redis, jobs: {}, workflows: { trial } });
  const id = await tq.workflows.start("trial", { userId: "u1" });
  await runUntilIdle();
  await clock.advance("3d");
  await runUntilIdle();
  await clock.advance("2d");
  await tq.workflows.sendEvent("invoice.paid", { match: "u1", data: { plan: "pro" } });
  await runUntilIdle();
  if ((await tq.workflows.result(id)) !== "upgraded to pro") throw new Error("the run did not complete as expected");
  await close();
  return performance.now() - started;
}

await once(); // warm: scripts loaded, modules compiled
const times: number[] = [];
for (let i = 0; i < RUNS; i++) times.push(await once());
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
console.log(
  `3-day sleep + 7-day wait workflow test, ${RUNS} runs: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`,
);
client.disconnect();
