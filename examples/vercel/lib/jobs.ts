// The project's one job. Each handler gets the job's arguments and a context:
// its attempt, a logger, and a signal that aborts when the job's time is up.
import type { JobHandler } from "tickq";

const sendWelcomeEmail: JobHandler<[string]> = async ([to], ctx) => {
  // Stands in for a call to an email API, e.g. fetch(url, { method: "POST", body, signal: ctx.signal }).
  await new Promise((resolve) => setTimeout(resolve, 20));
  ctx.log.info(`welcome email sent to ${to}`);
};

export const jobs = { sendWelcomeEmail };
