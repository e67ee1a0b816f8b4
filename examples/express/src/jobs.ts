// The service's one job. A handler gets the job's arguments and a context:
// its attempt, a logger, and a signal that aborts when the job's time is up.
import type { JobDefinition } from "tickq";
import { setTimeout as sleep } from "node:timers/promises";

/** Retried up to 5 times, with Sidekiq's growing backoff, if the email API fails. */
const sendWelcomeEmail: JobDefinition<[string]> = {
  retry: 5,
  perform: async ([to], ctx) => {
    await sleep(20, undefined, { signal: ctx.signal }); // stands in for a call to an email API
    ctx.log.info(`welcome email sent to ${to}`);
  },
};

export const jobs = { sendWelcomeEmail };
