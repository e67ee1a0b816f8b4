// Enqueue-to-start latency under Bun and under Deno, each the real binary (the `bun` and `deno`
// packages): a server of tickq's app (bun-entry.ts, deno-entry.ts) with kick on, POST /jobs, then the
// time until the job reports its start to a small HTTP receiver here, as latency-worker.ts measures
// the Worker. Enqueues are spaced 50–150 ms apart (a fixed seed), one at a time.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../../scripts/tickq-source.mjs";
import { listen } from "../../src/platforms/node/listen.js";
import { denoSourcesConfig } from "../../test/helpers/deno-config.js";
import { seededRng } from "../chaos/rng.js";
import { cleanUp } from "./latency-node.js";
import { pause, until, type LatencyRow } from "./stats.js";

const SECRET = "bench-secret-0123456789";

export async function runtimeLatency(redisUrl: string, runtime: "Bun" | "Deno", samples: number): Promise<LatencyRow> {
  const started = new Map<number, number>();
  const receiver = await listen((request) => {
    started.set(Number(new URL(request.url).pathname.split("/").at(-1)), performance.now());
    return new Response("ok");
  });
  const prefix = `bench:latency-${runtime.toLowerCase()}-${Date.now()}:`;
  // Deno runs the sources through the example's npm: imports (test/helpers/deno-config.ts); Bun reads them as they are.
  const config = runtime === "Deno" ? denoSourcesConfig() : undefined;
  const bin = join(repoRoot, "node_modules", ".bin", runtime.toLowerCase());
  const args = config
    ? ["run", "--allow-net", "--allow-env", "--allow-read", "--config", config.path, "bench/serverless/deno-entry.ts"]
    : ["run", "bench/serverless/bun-entry.ts"];
  const child = spawn(bin, args, {
    cwd: repoRoot,
    env: {
      ...process.env,
      BENCH_URL: receiver.url,
      REDIS_URL: redisUrl,
      TICKQ_PREFIX: prefix,
      TICKQ_SECRET: SECRET,
      NO_COLOR: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  child.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const random = seededRng(7);
  const sent = new Map<number, number>();
  try {
    if (!(await until(() => /listening on http/.test(printed) || child.exitCode !== null, 120_000, 20)))
      throw new Error(`${runtime} did not start:\n${printed}`);
    const url = /listening on (http:\/\/\S+)/.exec(printed)?.[1];
    if (!url) throw new Error(`${runtime} exited before listening:\n${printed}`);
    for (let i = 0; i < samples; i++) {
      sent.set(i, performance.now());
      const res = await fetch(`${url}/jobs`, {
        method: "POST",
        headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "mark", args: [i] }),
      });
      if (res.status !== 201) throw new Error(`POST /jobs answered ${res.status}`);
      await pause(50 + random() * 100);
    }
    if (!(await until(() => started.size === samples, 10_000)))
      throw new Error(`only ${started.size} of ${samples} jobs started:\n${printed}`);
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    config?.remove();
    await receiver.close();
    await cleanUp(redisUrl, prefix);
  }
  return {
    runtime: `${runtime} (${runtime === "Bun" ? "Bun.serve" : "Deno.serve"})`,
    trigger: "kick on enqueue",
    samples: [...sent].map(([i, t]) => started.get(i)! - t),
  };
}
