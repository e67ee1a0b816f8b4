// Kick and fan-out on the Node server: a job enqueued through POST /jobs
// starts within milliseconds (no waiting for the next tick of the loop);
// a backlog fans out through the server's own /tick, and under 50
// simultaneous enqueues never more than maxParallel ticks are live.
import { describe, expect, it } from "vitest";
import { startServer } from "../../../src/platforms/node/server.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { redisUrl, sleep } from "../../helpers/redis.js";
import { sampleLive } from "./live.js";

const SECRET = "kick-secret-for-tests";
const headers = { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" };

describe("kick and fan-out on the Node server", () => {
  const h = useHarness(adapterCases[0]!, "server-kick");

  it("POST /jobs with kick on starts the job within milliseconds, not at the loop's next tick (a minute away here)", async () => {
    const started = new Map<string, number>();
    const jobs = { mark: ([id]: [string]) => void started.set(id, Date.now()) };
    const server = await startServer({
      redisUrl: redisUrl(),
      jobs,
      prefix: h.prefix,
      port: 0,
      secret: SECRET,
      kick: true,
      tickEveryMs: 60_000,
    });
    try {
      const latencies: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = Date.now();
        const res = await fetch(`${server.url}/jobs`, {
          method: "POST",
          headers,
          body: JSON.stringify({ name: "mark", args: [`k${i}`] }),
        });
        expect(res.status).toBe(201);
        for (let w = 0; w < 200 && !started.has(`k${i}`); w++) await sleep(5);
        latencies.push(started.get(`k${i}`)! - t);
      }
      expect(Math.max(...latencies)).toBeLessThan(2_000); // the loop would take a minute; the bench measures the real figures
      // the server's own tickq kicks too, in-process
      await server.tickq.enqueue("mark", ["own"], { kick: true });
      for (let w = 0; w < 200 && !started.has("own"); w++) await sleep(5);
      expect(started.has("own")).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("fans a backlog out through /tick, never more than maxParallel live ticks under 50 simultaneous enqueues", async () => {
    let done = 0;
    const running = { now: 0, max: 0 };
    const jobs = {
      nap: async () => {
        running.max = Math.max(running.max, ++running.now);
        await sleep(40);
        running.now--;
        done++;
      },
    };
    const server = await startServer({
      redisUrl: redisUrl(),
      jobs,
      prefix: h.prefix,
      port: 0,
      secret: SECRET,
      kick: { max: 2 },
      maxParallel: 3,
      tickEveryMs: 0,
      tick: { budgetMs: 400, concurrency: 2, batch: 4 },
    });
    const sampler = sampleLive(h.redis, h.prefix, 2);
    try {
      const bodies = Array.from({ length: 50 }, (_, i) =>
        JSON.stringify(Array.from({ length: 4 }, (_, k) => ({ name: "nap", args: [i * 4 + k] }))),
      );
      const answers = await Promise.all(
        bodies.map((body) => fetch(`${server.url}/jobs`, { method: "POST", headers, body })),
      );
      expect(answers.every((r) => r.status === 201)).toBe(true);
      for (let w = 0; w < 400 && done < 200; w++) await sleep(25);
      expect(done).toBe(200);
    } finally {
      const max = await sampler.stop();
      await server.close();
      expect(max).toBeLessThanOrEqual(3);
      expect(max).toBeGreaterThanOrEqual(2); // it did fan out beyond the kicked ticks' work
    }
    expect(running.max).toBeLessThanOrEqual(3 * 2); // maxParallel ticks × concurrency 2
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(0);
  }, 60_000);
});
