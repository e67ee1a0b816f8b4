// A test's tickq world: its adapter, a direct Redis for assertions, a unique
// prefix, and cleanup of everything under that prefix afterwards. Over the
// `cluster` case the prefix carries a hash tag (every key in one slot) and
// the direct Redis is a connection to the master of that slot.
import type { Redis } from "ioredis";
import { afterEach, beforeEach } from "vitest";
import { createTickq, type Tickq } from "../../src/index.js";
import type { OrderedRegistry, WorkflowInputs } from "../../src/index.js";
import type { JobLogger } from "../../src/job/context.js";
import type { JobRegistry } from "../../src/job/definition.js";
import type { RedisAdapter } from "../../src/redis/types.js";
import type { TickqOptions } from "../../src/types.js";
import type { AdapterCase } from "./adapters.js";
import { masterOfPrefix, uniqueTaggedPrefix } from "./cluster-slot.js";
import { deleteUnder, directRedis, uniquePrefix } from "./redis.js";

export interface Harness {
  adapter: RedisAdapter;
  redis: Redis;
  prefix: string;
  make<J extends JobRegistry, W extends WorkflowInputs = Record<never, never>>(
    jobs: J,
    options?: Partial<TickqOptions<J, OrderedRegistry, W>>,
  ): Tickq<J, OrderedRegistry, W>;
  /** Every line tickq logged during the test. */
  logged: string[];
}

export function useHarness(adapterCase: AdapterCase, label: string): Harness {
  const h = { logged: [] as string[] } as unknown as Harness;
  let close: () => Promise<void> = async () => {};
  beforeEach(async () => {
    const opened = adapterCase.open();
    close = opened.close;
    h.adapter = opened.adapter;
    if (adapterCase.name === "cluster") {
      h.prefix = uniqueTaggedPrefix(label);
      h.redis = await masterOfPrefix(adapterCase.endpoints().redisUrl, h.prefix);
    } else {
      h.prefix = uniquePrefix(`${adapterCase.name}:${label}`);
      h.redis = directRedis();
    }
    h.logged.length = 0;
    const logger: JobLogger = {
      info: (m) => h.logged.push(m),
      warn: (m) => h.logged.push(m),
      error: (m) => h.logged.push(m),
    };
    h.make = (jobs, options = {}) => createTickq({ redis: h.adapter, prefix: h.prefix, logger, ...options, jobs });
  });
  afterEach(async () => {
    await deleteUnder(h.redis, h.prefix);
    h.redis.disconnect();
    await close();
  });
  return h;
}
