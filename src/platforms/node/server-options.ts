// Splits startServer's options into the server's own and the ones it hands to createTickq, so every
// createTickq option (workflows, keepCompleted, telemetry…) reaches the tickq without being listed twice.
import type { JobRegistry, OrderedRegistry, TickqOptions, WorkflowInputs } from "../../index.js";
import type { ServerOptions } from "./server.js";

type ServerOnlyKey = Exclude<keyof ServerOptions, keyof TickqOptions> | "kick" | "redisTimeoutMs";

// A Record over the type's keys: a server option added without a line here fails the type check.
const SERVER_ONLY: Readonly<Record<ServerOnlyKey, true>> = {
  redisUrl: true,
  cluster: true,
  port: true,
  secret: true,
  readSecret: true,
  metricsSecret: true,
  tickSecret: true,
  insecure: true,
  publicUrl: true,
  tickEveryMs: true,
  tick: true,
  onTick: true,
  kick: true,
  maxParallel: true,
  routes: true,
  dashboard: true,
  redisTimeoutMs: true,
};

/** The options createTickq takes, without `redis` (the server connects it): createTickq refuses an unknown key. */
export function tickqOptionsOf<W extends WorkflowInputs>(
  options: ServerOptions<W>,
): Omit<TickqOptions<JobRegistry, OrderedRegistry, W>, "redis"> {
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(SERVER_ONLY, key)) rest[key] = (options as unknown as Record<string, unknown>)[key];
  }
  return rest as unknown as Omit<TickqOptions<JobRegistry, OrderedRegistry, W>, "redis">;
}
