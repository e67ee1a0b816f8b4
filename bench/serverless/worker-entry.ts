// The bench's Worker: one job that tells the bench, over HTTP, when it
// started. BENCH_URL is replaced at bundle time (bench/serverless/latency-worker.ts).
import { tickqWorker } from "../../src/platforms/cloudflare/worker.js";

declare const BENCH_URL: string;

export default tickqWorker({
  jobs: { mark: async ([id]: [number]) => void (await fetch(`${BENCH_URL}/started/${id}`)).body?.cancel() },
});
