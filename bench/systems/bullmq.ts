import { Queue, Worker } from "bullmq";
import { durationOf, jobCount, work } from "../jobs.js";
import type { System, SystemFactory } from "./types.js";

export const bullmqSystem: SystemFactory = async (redisUrl, label) => {
  const { hostname, port } = new URL(redisUrl);
  const connection = { host: hostname, port: Number(port || 6379) };
  const name = `bench-${label}`;
  const queue = new Queue(name, { connection, defaultJobOptions: { removeOnComplete: true } });
  const start = (n: number, concurrency: number, onAll?: () => void) => {
    let done = 0;
    const worker = new Worker(name, async (job) => work(job.data.ms), { connection, concurrency });
    worker.on("completed", () => ++done === n && onAll?.());
    return worker;
  };
  return {
    name: "BullMQ",
    async enqueue(jobs) {
      const n = jobCount(jobs);
      for (let i = 0; i < n; i += 1_000) {
        await queue.addBulk(
          Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({
            name: "job",
            data: { i: i + k, ms: durationOf(jobs, i + k) },
          })),
        );
      }
    },
    async drain(n, options = {}) {
      let worker: Worker | undefined;
      await new Promise<void>((resolve) => (worker = start(n, options.concurrency ?? 50, resolve)));
      await worker!.close();
      return {};
    },
    async idle(ms) {
      const worker = start(0, 50);
      await new Promise((r) => setTimeout(r, ms));
      await worker.close();
    },
    async close() {
      await queue.obliterate({ force: true });
      await queue.close();
    },
  } satisfies System;
};
