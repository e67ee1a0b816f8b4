// Two steps in flight on one TCP connection (lanes 'c' and 'd',
// lib/tick/replay-call.lua) are taken in the order the tick sent them, but
// its own resends (src/tick/calls.ts: a transient error, such as LOADING
// while Redis restarts, is retried after a back-off that grows with each
// failure) can make Redis run them in another order. Here the step sent
// first fails until the one sent second has run and lost its reply; the
// first's reply is then taken, its lane's next step runs, and only then
// does the second's resend reach Redis. Two calls of the other lane (the one
// resent late and its next) now sit in front of the second's jobs. Jobs of one
// length each (a fixed-length jid, args of three digits) leave a count and a
// length that cannot tell them apart. No job may run twice.
import { expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const QUIET = { info() {}, warn() {}, error() {} };
const tcp = adapterCases.filter((c) => c.name === "ioredis");
const JOBS = 60;

describeOverAdapters(tcp, "a connection lane step resent behind two of the other lane's over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "connlanes-reordered");

  it("no job runs twice in one tick when a resent step runs after two steps of the other lane", async () => {
    const runs = new Map<number, number>();
    const jobs = {
      work: async (args: unknown[]) => {
        const n = args[0] as number;
        runs.set(n, (runs.get(n) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 3));
      },
    };
    const inner = h.adapter;
    const headerOf = (args: readonly string[]) => /^(\d+)([cd])\//.exec(args[5] ?? "");
    // `first`: a lane step that a step of the other lane (`second`) was sent beside, within 30 ms of it.
    let first: string | undefined;
    let second: string | undefined;
    let firstLane: string | undefined;
    let waiting: ((number: string, lane: string) => boolean) | undefined;
    let secondDone = false;
    let nextOfFirstLane: () => void = () => {};
    const nextOfFirstLaneRan = new Promise<void>((r) => (nextOfFirstLane = r));
    const loading = () => new Error("LOADING Redis is loading the dataset in memory");
    const redis: RedisAdapter = {
      ...inner,
      evalsha: async (sha, keys, args) => {
        const m = headerOf(args as string[]);
        if (!m) return inner.evalsha(sha, keys, args);
        const [, number, lane] = m as unknown as [string, string, string];
        if (first === undefined && waiting?.(number, lane)) {
          // The second: it runs, and its reply is lost; its resend waits out the first lane's next step.
          await inner.evalsha(sha, keys, args);
          secondDone = true;
          throw loading();
        }
        if (number === second) {
          await nextOfFirstLaneRan;
          return inner.evalsha(sha, keys, args);
        }
        // The first fails (Redis loading) until the second has run: its back-off lets the second go first.
        if (number === first) {
          if (!secondDone) throw loading();
          return inner.evalsha(sha, keys, args);
        }
        if (first === undefined && waiting === undefined) {
          const beside = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), 30);
            waiting = (n, l) => {
              if (l === lane) return false;
              clearTimeout(timer);
              first = number;
              firstLane = lane;
              second = n;
              resolve(true);
              return true;
            };
          });
          waiting = undefined;
          if (beside) throw loading();
        }
        const reply = await inner.evalsha(sha, keys, args);
        if (lane === firstLane && second !== undefined && Number(number) > Number(second)) nextOfFirstLane();
        return reply;
      },
    };
    const tq = createTickq({ redis, prefix: h.prefix, jobs, logger: QUIET });
    await tq.enqueueBulk(Array.from({ length: JOBS }, (_, i) => ({ name: "work", args: [100 + i] })));
    const report = await tq.tick({ batch: 5, concurrency: 20 });
    for (let k = 0; k < 3 && (await tq.stats()).queues.default! > 0; k++) await tq.tick({ batch: 5, concurrency: 20 });
    expect(secondDone).toBe(true);
    const twice = [...runs].filter(([, n]) => n > 1).map(([k]) => k);
    expect(twice).toEqual([]);
    // None lost: a job not run waits in the tick's list (its replay answered a lost lease) for resurrection.
    expect(runs.size + (await tq.stats()).inflight).toBe(JOBS);
    expect(report.leaseLost).toBe(true);
  });
});
