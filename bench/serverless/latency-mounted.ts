// Enqueue-to-start latency with tickq mounted in Express and in Fastify: POST /tickq/jobs with a kick,
// then the time until the handler starts (recorded in this same process), as latency-node.ts measures
// the Node server. Enqueues are spaced 50–150 ms apart (a fixed seed), one at a time.
import type { AddressInfo } from "node:net";
import express from "express";
import Fastify from "fastify";
import { Redis } from "ioredis";
import { tickqExpress } from "../../src/platforms/express/index.js";
import { tickqFastify } from "../../src/platforms/fastify/index.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { seededRng } from "../chaos/rng.js";
import { cleanUp } from "./latency-node.js";
import { pause, until, type LatencyRow } from "./stats.js";

const SECRET = "bench-secret-0123456789";

export async function mountedLatency(
  redisUrl: string,
  framework: "Express" | "Fastify",
  samples: number,
): Promise<LatencyRow> {
  const started = new Map<number, number>();
  const prefix = `bench:latency-${framework.toLowerCase()}-${Date.now()}:`;
  const redis = new Redis(redisUrl);
  const options = {
    redis: ioredisAdapter(redis),
    prefix,
    kick: true,
    env: { TICKQ_SECRET: SECRET },
    jobs: { mark: ([id]: [number]) => void started.set(id, performance.now()) },
  };
  const served = framework === "Express" ? await serveExpress(options) : await serveFastify(options);
  const random = seededRng(7);
  const sent = new Map<number, number>();
  try {
    for (let i = 0; i < samples; i++) {
      sent.set(i, performance.now());
      const res = await fetch(`${served.url}/tickq/jobs`, {
        method: "POST",
        headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "mark", args: [i] }),
      });
      if (res.status !== 201) throw new Error(`POST /tickq/jobs answered ${res.status}`);
      await pause(50 + random() * 100);
    }
    if (!(await until(() => started.size === samples, 10_000)))
      throw new Error(`only ${started.size} of ${samples} jobs started`);
  } finally {
    await served.close();
    redis.disconnect();
    await cleanUp(redisUrl, prefix);
  }
  return {
    runtime: `${framework} (tickq under /tickq)`,
    trigger: "kick on enqueue",
    samples: [...sent].map(([i, t]) => started.get(i)! - t),
  };
}

type Options = Parameters<typeof tickqExpress>[0];

async function serveExpress(options: Options) {
  const handler = tickqExpress(options);
  const app = express();
  app.use("/tickq", handler);
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await handler.close();
    },
  };
}

async function serveFastify(options: Options) {
  const app = Fastify();
  await app.register(tickqFastify(options), { prefix: "/tickq" });
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return { url, close: () => app.close() };
}
