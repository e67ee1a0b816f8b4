// Redis' memory while a run of big step results resumes: its own data plus a
// bounded overhead (a claim carries at most 1 MiB of results, a read at most
// 1 MiB, the lease none), not a second copy of the run's results at every
// resume. A private redis-server, so its peak is this run's alone.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { startUpstashLocal, type UpstashLocalServer } from "../../../tools/upstash-local/server.js";
import { adapterCases } from "../../helpers/adapters.js";
import { openAdapter } from "../../helpers/open-adapter.js";
import { startPrivateRedis, type PrivateRedis } from "../../helpers/private-redis.js";

const TOKEN = "resume-memory-token-of-enough-length-01";
const STEPS = 24;
const MIB = 1024 * 1024;

async function memory(redis: Redis): Promise<{ used: number; peak: number }> {
  const info = await redis.info("memory");
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(info)![1]);
  return { used: field("used_memory"), peak: field("used_memory_peak") };
}

describe.each(adapterCases)("Redis memory while a run of big results resumes over $name", (adapterCase) => {
  let server: PrivateRedis;
  let rest: UpstashLocalServer;
  let direct: Redis;
  beforeAll(async () => {
    server = await startPrivateRedis();
    rest = await startUpstashLocal({ redisUrl: server.url, token: TOKEN });
    direct = new Redis(server.url);
  });
  afterAll(async () => {
    direct.disconnect();
    await rest.close();
    await server.stop();
  });

  it(`${STEPS} results of 250 KB, a sleep after each: the peak stays within the run's stored data plus 4 MiB`, async () => {
    const opened = openAdapter(adapterCase.name, { redisUrl: server.url, restUrl: rest.url, restToken: TOKEN });
    const result = (i: number) => `${i}:`.padEnd(250_000, "r");
    const tq = createTickq({
      redis: opened.adapter,
      prefix: "mem:",
      jobs: {},
      workflows: {
        big: {
          run: async (_: null, step) => {
            let read = 0;
            for (let i = 0; i < STEPS; i++) {
              if ((await step.run(`s${i}`, () => result(i))) === result(i)) read++;
              await step.sleep(`nap${i}`, 1);
            }
            return read;
          },
        },
      },
    });
    try {
      const id = await tq.workflows.start("big", null);
      for (let t = 0; t < 3 * STEPS && (await direct.hget(`mem:wf:run:${id}`, "status")) !== "completed"; t++) {
        await tq.tick({ budgetMs: 5_000 });
      }
      expect(await direct.hget(`mem:wf:run:${id}`, "output")).toBe(String(STEPS));
      const { used, peak } = await memory(direct);
      // What the run stores (its records are kept for the retention window) is in `used`.
      expect(used).toBeGreaterThan(STEPS * 250_000);
      expect(peak - used).toBeLessThanOrEqual(4 * MIB);
    } finally {
      await opened.close();
    }
  }, 120_000);
});
