// The service's one job. A handler gets the job's arguments and a context:
// its attempt, a logger, and a signal that aborts when the job's time is up.
import type { JobDefinition } from "tickq";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retried up to 5 times, with Sidekiq's growing backoff, if the email API fails. */
const sendWelcomeEmail: JobDefinition<[string]> = {
  retry: 5,
  perform: async ([to], ctx) => {
    await sleep(20); // stands in for a call to an email API
    ctx.log.info(`welcome email sent to ${to}`);
  },
};

export const jobs = { sendWelcomeEmail };
