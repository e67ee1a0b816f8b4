// Enqueue-to-start latency of the Netlify function (tickq/netlify) called with Netlify's signature, as
// examples/netlify's `npm run local` calls it: a Request POSTing /api/jobs and a Context whose
// waitUntil keeps the kicked tick, over the local Upstash-compatible REST server (Netlify's functions
// reach Redis over HTTP); then the time until the job starts (in this process). Requests are spaced
// 50–150 ms apart (a fixed seed), one at a time.
import { tickqNetlify } from "../../src/platforms/netlify/index.js";
import { startUpstashLocal } from "../../tools/upstash-local/server.js";
import { seededRng } from "../chaos/rng.js";
import { cleanUp } from "./latency-node.js";
import { pause, until, type LatencyRow } from "./stats.js";

const SECRET = "bench-secret-0123456789";

export async function netlifyLatency(redisUrl: string, samples: number): Promise<LatencyRow> {
  const started = new Map<number, number>();
  const rest = await startUpstashLocal({ redisUrl, token: "bench-token-0123456789" });
  const prefix = `bench:latency-netlify-${Date.now()}:`;
  const site = tickqNetlify({
    kick: true,
    env: {
      UPSTASH_REDIS_REST_URL: rest.url,
      UPSTASH_REDIS_REST_TOKEN: rest.token,
      TICKQ_SECRET: SECRET,
      TICKQ_PREFIX: prefix,
    },
    jobs: { mark: ([id]: [number]) => void started.set(id, performance.now()) },
  });
  const pending: Promise<unknown>[] = [];
  const context = { waitUntil: (promise: Promise<unknown>) => void pending.push(promise), ip: "127.0.0.1" };
  const random = seededRng(7);
  const sent = new Map<number, number>();
  try {
    for (let i = 0; i < samples; i++) {
      sent.set(i, performance.now());
      const request = new Request("http://localhost:8888/api/jobs", {
        method: "POST",
        headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "mark", args: [i] }),
      });
      const res = await site.fetch(request, context);
      if (res.status !== 201) throw new Error(`POST /api/jobs answered ${res.status}`);
      await pause(50 + random() * 100);
    }
    if (!(await until(() => started.size === samples, 10_000)))
      throw new Error(`only ${started.size} of ${samples} jobs started`);
    await Promise.all(pending);
  } finally {
    await rest.close();
    await cleanUp(redisUrl, prefix);
  }
  return {
    runtime: "Netlify function (Request, Context)",
    trigger: "kick in context.waitUntil",
    samples: [...sent].map(([i, t]) => started.get(i)! - t),
  };
}
