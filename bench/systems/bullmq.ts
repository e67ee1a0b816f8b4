import { Queue, Worker } from "bullmq";
import type { System, SystemFactory } from "./types.js";

export const bullmqSystem: SystemFactory = async (redisUrl, label) => {
  const { hostname, port } = new URL(redisUrl);
  const connection = { host: hostname, port: Number(port || 6379) };
  const name = `bench-${label}`;
  const queue = new Queue(name, { connection, defaultJobOptions: { removeOnComplete: true } });
  const work = (n: number, onAll?: () => void) => {
    let done = 0;
    const worker = new Worker(name, async () => {}, { connection, concurrency: 50 });
    worker.on("completed", () => ++done === n && onAll?.());
    return worker;
  };
  return {
    name: "BullMQ",
    async enqueue(n) {
      for (let i = 0; i < n; i += 1_000) {
        await queue.addBulk(Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({ name: "noop", data: { i: i + k } })));
      }
    },
    async drain(n) {
      let worker: Worker | undefined;
      await new Promise<void>((resolve) => (worker = work(n, resolve)));
      await worker!.close();
      return {};
    },
    async idle(ms) {
      const worker = work(0);
      await new Promise((r) => setTimeout(r, ms));
      await worker.close();
    },
    async close() {
      await queue.obliterate({ force: true });
      await queue.close();
    },
  } satisfies System;
};
