// The Worker's jobs. A handler gets the job's arguments and a context: its
// attempt, a logger, and a signal that aborts when the job's time is up.
import type { JobDefinition, JobHandler } from "tickq";

/** Stands in for a call to an email or image API: resolves after `ms`, rejects when the job is aborted. */
function callApi(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

const sendWelcomeEmail: JobHandler<[string]> = async ([to], ctx) => {
  await callApi(20, ctx.signal);
  ctx.log.info(`welcome email sent to ${to}`);
};

/** On a queue of its own, so a burst of images never delays the emails. */
const resizeImage: JobDefinition<[string, number]> = {
  queue: "media",
  retry: 3, // a resize that keeps failing is dead after 3 retries, not the default 25
  perform: async ([url, width], ctx) => {
    await callApi(50, ctx.signal);
    ctx.log.info(`resized ${url} to ${width}px`);
  },
};

export const jobs = { sendWelcomeEmail, resizeImage };
/** Each tick takes up to 3 jobs from default for each one from media. */
export const queues: [string, number][] = [
  ["default", 3],
  ["media", 1],
];
