// tickq redis-http [--port P] [--token T] [--insecure-token] [--any-script] [--latency-ms MS]: the local Upstash-compatible REST server.
// tickq serve --jobs ./jobs.js [--port P]: the app on Node, ticking every second (as npm start).
// Both talk to Redis over TCP through ioredis, an optional peer: their modules load when the command runs,
// so the other commands work without ioredis (an Upstash user's install), and these name the package.
import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { dashboard } from "../../dashboard/index.js";
import { redactUrl } from "../../redact.js";
import { redisUrls } from "../../redis/ioredis-url.js";
import { hashTagOf } from "../../tick/runtime.js";
import { importClient } from "../connect.js";
import { globals, intOption } from "../global.js";
import { keepRunning } from "../lifetime.js";
import { loadJobs } from "../load-jobs.js";
import { parseQueues } from "./tick.js";
import { print } from "../output.js";

export function addServerCommands(program: Command): void {
  program
    .command("redis-http")
    .description(
      "a local Upstash-compatible REST server in front of REDIS_URL (else 127.0.0.1:6379, else a private redis-server)",
    )
    .option("--port <port>", "port to listen on", "8079")
    .option("--token <token>", "bearer token, at least 16 characters (default: a random one, printed)")
    .option("--insecure-token", "accept a token under 16 characters")
    .option("--any-script", "run any Lua script, not only tickq's (a script can flush the Redis behind it)")
    .option("--latency-ms <ms>", "added to every request", "0")
    .action(
      async (options: {
        port: string;
        token?: string;
        insecureToken?: boolean;
        anyScript?: boolean;
        latencyMs: string;
      }) => {
        await importClient("ioredis", () => import("ioredis"));
        const { runRedisHttp } = await import("../../../tools/upstash-local/run.js");
        const { devRedis } = await import("../dev/redis.js");
        keepRunning();
        await runRedisHttp({
          redis: (await devRedis("redis-http")).found,
          port: intOption(options.port, "--port"),
          token: options.token,
          insecureToken: options.insecureToken,
          anyScript: options.anyScript,
          latencyMs: intOption(options.latencyMs, "--latency-ms"),
        });
      },
    );

  program
    .command("serve")
    .description(
      "serve the app (/tick, /jobs, /stats, /health…) and tick every second, over REDIS_URL (else a local Redis)",
    )
    .requiredOption(
      "--jobs <module>",
      "a module exporting `jobs`, and optionally `queues`, `schedules`, `ordered` and `workflows`",
    )
    .option("--queues <queues>", "a,b or a:3,b:1")
    .option("--port <port>", "port to listen on", "3000")
    .action(async (options: { jobs: string; queues?: string; port: string }, command: Command) => {
      const { prefix, partitions, cluster } = globals(command);
      const loaded = await loadJobs(options.jobs);
      await importClient("ioredis", () => import("ioredis"));
      const { devRedis } = await import("../dev/redis.js");
      const { stopOnSignals } = await import("../../platforms/node/listen.js");
      const { startServer } = await import("../../platforms/node/server.js");
      keepRunning();
      const { found: redis, line } = await devRedis("serve");
      print(line);
      const secret = process.env.TICKQ_SECRET ?? randomBytes(24).toString("base64url");
      if (!process.env.TICKQ_SECRET)
        print(`no TICKQ_SECRET set; using a random one for this run:\n  TICKQ_SECRET=${secret}`);
      const queues = options.queues ? parseQueues(options.queues) : loaded.queues;
      const server = await startServer({
        redisUrl: redis.url,
        jobs: loaded.jobs,
        queues,
        schedules: loaded.schedules,
        ordered: loaded.ordered,
        workflows: loaded.workflows,
        prefix,
        // As the other commands read a cluster: an untagged prefix's partitions are "auto" unless given.
        partitions: partitions ?? (cluster && hashTagOf(prefix) === undefined ? "auto" : undefined),
        cluster,
        port: intOption(options.port, "--port"),
        secret,
        readSecret: process.env.TICKQ_READ_SECRET || undefined,
        metricsSecret: process.env.TICKQ_METRICS_SECRET || undefined,
        tickSecret: process.env.CRON_SECRET || undefined,
        publicUrl: process.env.TICKQ_PUBLIC_URL || undefined,
        dashboard: dashboard(),
      }).catch(async (error: unknown) => {
        await redis.stop();
        throw error;
      });
      print(
        `tickq: listening on ${server.url} (Redis: ${redisUrls(redis.url).map(redactUrl).join(",")}); ticking every second; dashboard at ${server.url}/dashboard`,
      );
      stopOnSignals(async () => {
        await server.close();
        await redis.stop();
      });
    });
}
