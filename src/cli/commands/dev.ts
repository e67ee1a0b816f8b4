// tickq dev --jobs ./app.ts [--port P] [--queues a,b]: develop against a live loop. Finds or
// starts Redis, serves the app and the dashboard with the module's jobs, ordered jobs, schedules
// and workflows, ticks every second and on each enqueue, reloads when the module changes, prints
// each job and step as it runs, and a one-time login link for the dashboard.
import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { stopOnSignals } from "../../platforms/node/listen.js";
import { lines } from "../dev/lines.js";
import { loginLink } from "../dev/login-link.js";
import { importClient } from "../connect.js";
import { globals, intOption } from "../global.js";
import { keepRunning } from "../lifetime.js";
import { loadJobs } from "../load-jobs.js";
import { print } from "../output.js";
import { parseQueues } from "./tick.js";

export function addDevCommand(program: Command): void {
  program
    .command("dev")
    .description(
      "develop: serve the module's jobs and workflows with the dashboard, tick every second and on enqueue, reload on change",
    )
    .requiredOption(
      "--jobs <module>",
      "a module exporting `jobs`, and optionally `queues`, `schedules`, `ordered` and `workflows`",
    )
    .option("--queues <queues>", "a,b or a:3,b:1")
    .option("--port <port>", "port to listen on (127.0.0.1)", "3000")
    .action(async (options: { jobs: string; queues?: string; port: string }, command: Command) => {
      const { prefix } = globals(command);
      const port = intOption(options.port, "--port") ?? 3000;
      // Loaded once before Redis, so a module that does not load says so before anything starts.
      const loaded = await loadJobs(options.jobs);
      const out = lines();
      // Loaded here, not at the top: they import ioredis, an optional peer every other command goes without.
      await importClient("ioredis", () => import("ioredis"));
      const { devRedis } = await import("../dev/redis.js");
      const { describe, startDevServer } = await import("../dev/server.js");
      const redis = await devRedis("dev");
      keepRunning();
      print(redis.line);
      const secret = process.env.TICKQ_SECRET ?? randomBytes(24).toString("base64url");
      const link = loginLink(secret);
      const server = await startDevServer({
        module: options.jobs,
        redisUrl: redis.found.url,
        prefix,
        port,
        secret,
        queues: options.queues ? parseQueues(options.queues) : undefined,
        link,
        out,
      }).catch(async (error: unknown) => {
        await redis.found.stop();
        throw error;
      });
      print(
        `tickq dev: ${server.url} serving ${options.jobs} (${describe(loaded)}); ticking every second and on each enqueue`,
      );
      print(`  dashboard: ${server.url}${link.path}  (a one-time login link; then TICKQ_SECRET at /dashboard/login)`);
      print(
        `  enqueue:   curl -X POST -H "Authorization: Bearer $TICKQ_SECRET" -H "content-type: application/json" -d '{"name":"…","args":[]}' ${server.url}/jobs`,
      );
      if (!process.env.TICKQ_SECRET)
        print(`  TICKQ_SECRET=${secret}  (random for this run; set TICKQ_SECRET to keep one)`);
      stopOnSignals(async () => {
        await server.close();
        await redis.found.stop();
      });
    });
}
