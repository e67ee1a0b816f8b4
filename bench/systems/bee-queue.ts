import BeeQueue from "bee-queue";
import { durationOf, jobCount, work } from "../jobs.js";
import type { System, SystemFactory } from "./types.js";

export const beeQueueSystem: SystemFactory = async (redisUrl, label) => {
  const { hostname, port } = new URL(redisUrl);
  const redis = { host: hostname, port: Number(port || 6379) };
  const name = `bench-${label}`;
  const producer = new BeeQueue(name, { redis, isWorker: false, prefix: "bq" });
  const worker = () => new BeeQueue(name, { redis, removeOnSuccess: true, prefix: "bq" });
  const handler = async (job: BeeQueue.Job<{ ms: number }>) => work(job.data.ms);
  return {
    name: "bee-queue",
    async enqueue(jobs) {
      const n = jobCount(jobs);
      for (let i = 0; i < n; i += 1_000) {
        await producer.saveAll(
          Array.from({ length: Math.min(1_000, n - i) }, (_, k) =>
            producer.createJob({ i: i + k, ms: durationOf(jobs, i + k) }),
          ),
        );
      }
    },
    async drain(n, options = {}) {
      const q = worker();
      let done = 0;
      await new Promise<void>((resolve) => {
        q.on("succeeded", () => ++done === n && resolve());
        q.process(options.concurrency ?? 50, handler);
      });
      await q.close();
      return {};
    },
    async idle(ms) {
      const q = worker();
      q.process(50, handler);
      await new Promise((r) => setTimeout(r, ms));
      await q.close();
    },
    async close() {
      await producer.destroy();
      await producer.close();
    },
  } satisfies System;
};
