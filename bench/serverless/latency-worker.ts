// Enqueue-to-start latency of the bundled Worker in Miniflare, over the
// local Upstash-compatible server: POST /jobs, then the time until the job
// reports its start to a small HTTP receiver here. With kick the tick runs
// in the request's waitUntil; without, the job waits for the Cron Trigger,
// fired every `cronSeconds` (Cloudflare's finest is 60 s), with the
// enqueues spread evenly over that period.
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { listen } from "../../src/platforms/node/listen.js";
import { startUpstashLocal } from "../../tools/upstash-local/server.js";
import { cleanUp } from "./latency-node.js";
import { pause, until, type LatencyRow } from "./stats.js";

export async function workerLatency(
  redisUrl: string,
  kick: boolean,
  samples: number,
  cronSeconds: number,
): Promise<LatencyRow> {
  const started = new Map<number, number>();
  const receiver = await listen((request) => {
    const id = Number(new URL(request.url).pathname.split("/").at(-1));
    started.set(id, performance.now());
    return new Response("ok");
  });
  const out = await build({
    entryPoints: ["bench/serverless/worker-entry.ts"],
    bundle: true,
    format: "esm",
    minify: true,
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    write: false,
    define: { BENCH_URL: JSON.stringify(receiver.url) },
  });
  const rest = await startUpstashLocal({ redisUrl, token: "bench-token-0123456789" });
  const prefix = `bench:latency-worker-${kick ? "kick" : "cron"}-${Date.now()}:`;
  const mf = new Miniflare({
    modules: true,
    script: out.outputFiles[0]!.text,
    compatibilityDate: "2025-09-01",
    bindings: {
      UPSTASH_REDIS_REST_URL: rest.url,
      UPSTASH_REDIS_REST_TOKEN: rest.token,
      TICKQ_SECRET: "bench-secret-0123456789",
      TICKQ_PREFIX: prefix,
      TICKQ_KICK: kick ? "1" : "0",
    },
  });
  const sent = new Map<number, number>();
  try {
    await mf.ready;
    const enqueue = async (i: number) => {
      sent.set(i, performance.now());
      const res = await mf.dispatchFetch("http://worker.test/jobs", {
        method: "POST",
        headers: { Authorization: "Bearer bench-secret-0123456789" },
        body: JSON.stringify({ name: "mark", args: [i] }),
      });
      if (res.status !== 201) throw new Error(`POST /jobs answered ${res.status}`);
    };
    if (kick) {
      for (let i = 0; i < samples; i++) {
        await enqueue(i);
        await pause(50 + ((i * 37) % 100));
      }
    } else {
      const period = cronSeconds * 1000;
      const from = performance.now();
      for (let i = 0; i < samples; i++) {
        await pause(Math.max(0, from + ((i + 0.5) * period) / samples - performance.now()));
        await enqueue(i);
      }
      await pause(Math.max(0, from + period - performance.now()));
      const worker = (await mf.getWorker()) as unknown as {
        scheduled(e: { cron: string }): Promise<{ outcome: string }>;
      };
      await worker.scheduled({ cron: "* * * * *" });
    }
    if (!(await until(() => started.size === samples, 15_000)))
      throw new Error(`only ${started.size} of ${samples} jobs started`);
  } finally {
    await mf.dispose();
    await rest.close();
    await receiver.close();
    await cleanUp(redisUrl, prefix);
  }
  const trigger = kick ? "kick on enqueue" : `cron trigger (every ${cronSeconds} s)`;
  return { runtime: "Worker (Miniflare)", trigger, samples: [...sent].map(([i, t]) => started.get(i)! - t) };
}
