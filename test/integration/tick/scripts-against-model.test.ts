// Model-based property test of the scripts. fast-check draws
// random sequences of operations — enqueue (and its replay), ticks that
// begin, step with random outcomes, housekeep and finish, calls replayed at
// once or late, replies lost, ticks killed, leases and the resurrector lock
// expired, delayed jobs made due — and drives the Lua scripts directly, so
// the test controls every call and its timing (helpers/tick-world.ts).
// After each operation it reads the whole prefix from Redis and compares it
// with the model (helpers/job-model.ts): every job in exactly one place, or
// done; counters, registrations, leases, the lock and resurrection counts
// as the model says. A failure prints the seed, the shrunk sequence and
// what differed. PROP_RUNS=n runs more sequences, PROP_SEED=s replays a
// seed, PROP_STATS=1 prints what the runs exercised.
import fc from "fast-check";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, it } from "vitest";
import { newJid } from "../../../src/job/codec.js";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { masterOfPrefix, uniqueTaggedPrefix } from "../../helpers/cluster-slot.js";
import { directRedis, uniquePrefix } from "../../helpers/redis.js";
import { runOps, TALLY, type Config, type Kind, type Op, type When } from "../../helpers/tick-world.js";

const rare = fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });
const kindArb = fc.constantFrom<Kind>("ok", "ok", "retry0", "retryLater", "dead", "discard", "q", "i");
const acksArb = fc.array(fc.record({ pick: fc.nat(15), outcome: kindArb }), { maxLength: 5 });

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("enqueue" as const),
      jobs: fc.array(
        fc.record({
          queue: fc.constantFrom("a" as const, "b" as const),
          when: fc.constantFrom<When>("now", "now", "now", "delay", "atPast", "atFuture"),
          own: fc.boolean(),
        }),
        { minLength: 1, maxLength: 5 },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("replayEnqueue" as const), pick: fc.nat(15) }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant("enqueueOwnAgain" as const), pick: fc.nat(15), withFresh: fc.boolean() }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("begin" as const),
      batch: fc.integer({ min: 1, max: 4 }),
      dup: rare,
      lose: rare,
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant("step" as const),
      tick: fc.nat(5),
      acks: acksArb,
      fetch: fc.integer({ min: 0, max: 4 }),
      dup: rare,
      lose: rare,
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("housekeep" as const), tick: fc.nat(5), dup: rare }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("finish" as const),
      tick: fc.nat(5),
      acks: acksArb,
      leave: rare,
      dup: rare,
      lose: rare,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("replay" as const),
      tick: fc.nat(5),
      older: fc.option(fc.nat(10), { nil: null }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("kill" as const), tick: fc.nat(5) }) },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant("expireLease" as const), tick: fc.nat(5), pexpire: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("expireLock" as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("makeDue" as const), retry: fc.boolean(), pick: fc.nat(15) }) },
);

const configArb: fc.Arbitrary<Config> = fc.record({
  deadMax: fc.constantFrom(1, 1_000),
  resurrectLimit: fc.constantFrom(1, 2, 1_000),
  scheduleLimit: fc.constantFrom(2, 1_000),
});

const ROOMY: Config = { deadMax: 1_000, resurrectLimit: 1_000, scheduleLimit: 1_000 };
const now = (queue: "a" | "b" = "a") => ({ queue, when: "now" as const, own: false });

/**
 * Sequences the property found (shrunk by fast-check, then trimmed by hand):
 * each fails on main at the time of writing, for the reason in its name.
 */
const regressions: [string, Config, Op[]][] = [
  [
    "a step whose reply is lost for good: finish sends its acks again, and lib/tick/ack-jobs.lua's fast path deletes the job that step fetched",
    ROOMY,
    [
      { t: "enqueue", jobs: [now(), now()] },
      { t: "begin", batch: 1, dup: false, lose: false },
      { t: "step", tick: 0, acks: [{ pick: 0, outcome: "ok" }], fetch: 1, dup: false, lose: true },
      { t: "finish", tick: 0, acks: [], leave: false, dup: false, lose: false },
    ],
  ],
  [
    "a late duplicate of begin starts again a tick whose lease expired (then its next ack takes the fast path and deletes a job it never held)",
    ROOMY,
    [
      { t: "enqueue", jobs: [now(), now(), now()] },
      { t: "begin", batch: 1, dup: false, lose: false },
      { t: "expireLease", tick: 0, pexpire: false },
      { t: "begin", batch: 1, dup: false, lose: false },
      { t: "replay", tick: 0, older: null },
      { t: "step", tick: 0, acks: [{ pick: 0, outcome: "ok" }], fetch: 0, dup: false, lose: false },
    ],
  ],
  [
    "a late duplicate of a finished tick's begin starts it again (then a late duplicate of its finish runs as new, deletes a job and doubles another)",
    ROOMY,
    [
      { t: "enqueue", jobs: [now(), now()] },
      { t: "begin", batch: 1, dup: false, lose: false },
      { t: "begin", batch: 1, dup: false, lose: false },
      { t: "finish", tick: 3, acks: [], leave: false, dup: true, lose: false },
      { t: "expireLease", tick: 1, pexpire: false },
      { t: "step", tick: 0, acks: [{ pick: 0, outcome: "retry0" }], fetch: 1, dup: false, lose: false },
      { t: "replay", tick: 1, older: 0 },
      { t: "replay", tick: 1, older: null },
    ],
  ],
];

describe.each(adapterCases)("model-based property test over $name", (adapterCase) => {
  let adapter: RedisAdapter;
  let redis: Redis;
  let close: () => Promise<void>;
  let prefixOf: (label: string) => string = uniquePrefix;
  beforeAll(async () => {
    const opened = adapterCase.open();
    adapter = opened.adapter;
    close = opened.close;
    if (adapterCase.name === "cluster") {
      // Every run's prefix under one hash tag: one slot, whose master `redis` speaks to.
      const tag = newJid().slice(0, 8);
      prefixOf = (label) => uniqueTaggedPrefix(label, tag);
      redis = await masterOfPrefix(adapterCase.endpoints().redisUrl, prefixOf("probe"));
    } else redis = directRedis();
  });
  afterAll(async () => {
    if (process.env.PROP_STATS)
      console.log(
        [...TALLY]
          .sort()
          .map(([k, v]) => `${k}=${v}`)
          .join("  "),
      );
    redis.disconnect();
    await close();
  });

  it("random sequences of enqueues, ticks, replays, deaths and expiries: every job in one place or done, counters exact", async () => {
    await fc.assert(
      fc.asyncProperty(configArb, fc.array(opArb, { minLength: 1, maxLength: 40, size: "max" }), (cfg, ops) =>
        runOps(adapter, redis, adapterCase.name, cfg, ops, prefixOf),
      ),
      {
        numRuns: Number(process.env.PROP_RUNS ?? 60),
        ...(process.env.PROP_SEED ? { seed: Number(process.env.PROP_SEED) } : {}),
      },
    );
  }, 120_000);

  it.each(regressions)("regression: %s", (_name, cfg, ops) =>
    runOps(adapter, redis, adapterCase.name, cfg, ops, prefixOf),
  );
});
