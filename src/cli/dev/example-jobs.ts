// A few example jobs for the servers and Workers in this folder.
import type { JobDefinition, JobHandler } from "../../index.js";

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const abort = () => (clearTimeout(timer), reject(signal.reason));
    const timer = setTimeout(() => (signal.removeEventListener("abort", abort), resolve()), ms);
    signal.addEventListener("abort", abort, { once: true });
  });

const sendWelcomeEmail: JobHandler<[string]> = async ([to], ctx) => {
  await pause(20, ctx.signal); // stands in for a call to an email API
  ctx.log.info(`welcome email sent to ${to}`);
};

const resizeImage: JobDefinition<[string, number]> = {
  queue: "media",
  perform: async ([url, width], ctx) => {
    await pause(50, ctx.signal);
    ctx.log.info(`resized ${url} to ${width}px`);
  },
};

/** Fails its first two attempts, to show retries. */
const flakyWebhook: JobDefinition<[string]> = {
  retry: 5,
  backoffMs: (count) => 1_000 * 2 ** count,
  perform: ([url], ctx) => {
    if (ctx.attempt < 3) throw new Error(`${url} answered 503 (attempt ${ctx.attempt})`);
    ctx.log.info(`delivered to ${url} on attempt ${ctx.attempt}`);
  },
};

export const exampleJobs = { sendWelcomeEmail, resizeImage, flakyWebhook };
export const exampleQueues: [string, number][] = [
  ["default", 3],
  ["media", 1],
];

// As a jobs module (`tickq dev --jobs`, which npm start runs on this file) exports them.
export { exampleJobs as jobs, exampleQueues as queues };
