// Freezes this thread (no timer, no lease renewal: an event loop that froze) until a list in
// Redis has an entry, not for a fixed time: a worker thread polls Redis while the main thread
// waits on Atomics. A test that froze for a fixed time assumed another process acted within it,
// which a loaded machine breaks (test/integration/ordered/frozen.test.ts).
import { Worker } from "node:worker_threads";
import type { Redis } from "ioredis";

const POLL = `
const { workerData } = require("node:worker_threads");
const { Redis } = require("ioredis");
const flag = new Int32Array(workerData.shared);
const redis = new Redis(workerData.options);
const poll = async () => {
  while ((await redis.llen(workerData.key)) === 0) await new Promise((r) => setTimeout(r, 20));
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  redis.disconnect();
};
poll();
`;

/** Blocks the calling thread until the list `key` is not empty, or `boundMs` passed (then throws). */
export function freezeUntilListed(redis: Redis, key: string, boundMs: number): void {
  const shared = new SharedArrayBuffer(4);
  const { host, port, db, password, username } = redis.options;
  const worker = new Worker(POLL, {
    eval: true,
    workerData: { shared, key, options: { host, port, db, password, username } },
  });
  const outcome = Atomics.wait(new Int32Array(shared), 0, 0, boundMs);
  void worker.terminate();
  if (outcome === "timed-out") throw new Error(`${key} stayed empty for ${boundMs} ms`);
}
