// The adapters tickq/testing's own suites run over: those of the run, and node-redis too when
// TICKQ_ADAPTERS is unset (the harness is a user-facing entry: each client a user tests with is
// covered by default). `useTestTickqs` opens the adapter per test and closes every test tickq.
import { afterEach, beforeEach } from "vitest";
import { createTestTickq, type TestTickq, type TestTickqOptions } from "../../src/testing/index.js";
import type { OrderedRegistry, WorkflowInputs } from "../../src/index.js";
import type { JobRegistry, RedisAdapter } from "../../src/index.js";
import { adapterCase, adapterCases, type AdapterCase } from "./adapters.js";

export const testingCases: AdapterCase[] =
  process.env.TICKQ_ADAPTERS || adapterCases.some((c) => c.name === "node-redis")
    ? adapterCases
    : [...adapterCases, adapterCase("node-redis")];

export interface TestTickqs {
  redis: RedisAdapter;
  make<
    J extends JobRegistry,
    O extends OrderedRegistry = Record<never, never>,
    W extends WorkflowInputs = Record<never, never>,
  >(options: Omit<TestTickqOptions<J, O, W>, "redis"> & { redis?: RedisAdapter }): Promise<TestTickq<J, O, W>>;
}

export function useTestTickqs(adapter: AdapterCase): TestTickqs {
  const made: TestTickq<JobRegistry>[] = [];
  let close: () => Promise<void> = async () => {};
  const t = {} as TestTickqs;
  beforeEach(() => {
    const opened = adapter.open();
    t.redis = opened.adapter;
    close = opened.close;
    t.make = async (options) => {
      const world = await createTestTickq({ logger: quiet, ...options, redis: options.redis ?? t.redis });
      made.push(world as unknown as TestTickq<JobRegistry>);
      return world;
    };
  });
  afterEach(async () => {
    for (const world of made.splice(0)) await world.close();
    await close();
  });
  return t;
}

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
