// The Node server: the shared app on @hono/node-server, plus a tick every
// second (skipped while the previous one still runs).
import { Redis } from "ioredis";
import { ioredisAdapter } from "../../adapters/ioredis.js";
import { createTickq, type JobRegistry, type QueueOrder, type Schedules, type TickOptions, type TickReport } from "../../src/index.js";
import { createApp } from "../app.js";
import { listen } from "./listen.js";

export interface ServerOptions {
  redisUrl: string;
  jobs: JobRegistry;
  queues?: QueueOrder;
  /** Recurring jobs (README, "Recurring jobs"). */
  schedules?: Schedules;
  /** Key prefix; default "tickq:". */
  prefix?: string;
  port?: number;
  secret?: string;
  insecure?: boolean;
  /** Milliseconds between ticks; 0 turns the loop off. */
  tickEveryMs?: number;
  tick?: TickOptions;
  onTick?: (report: TickReport) => void;
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  if (!options.secret && !options.insecure) {
    throw new Error("Refusing to start without TICKQ_SECRET: set it (or TICKQ_INSECURE=1 for local development only)");
  }
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 2 });
  redis.on("error", (error) => console.error(`tickq: Redis error: ${error.message}`));
  const tickq = createTickq({ redis: ioredisAdapter(redis), jobs: options.jobs, queues: options.queues, prefix: options.prefix, schedules: options.schedules });
  const tickOptions = { budgetMs: 5_000, ...options.tick };
  const app = createApp({ tickq, secrets: options.secret ? [options.secret] : [], insecure: options.insecure, tick: tickOptions });

  let running: Promise<void> | null = null;
  const loop =
    options.tickEveryMs === 0
      ? undefined
      : setInterval(() => {
          running ??= tickq
            .tick(tickOptions)
            .then((report) => options.onTick?.(report))
            .catch((error) => console.error(`tickq: tick failed: ${(error as Error).message}`))
            .finally(() => (running = null));
        }, options.tickEveryMs ?? 1_000);

  const server = await listen(app.fetch, options.port ?? 3000);
  return {
    url: server.url,
    close: async () => {
      clearInterval(loop);
      await running;
      await server.close();
      redis.disconnect();
    },
  };
}
