// Nonsense options are a TickqError (code BAD_OPTIONS) at
// createTickq or tick, naming the option, and a refused tick writes nothing;
// queue names that could not travel as words of a tick's registration (or
// as UTF-8 key parts) are refused, and odd-but-legal names never orphan a
// tick's lists.
import { describe, expect, it } from "vitest";
import { TickqError, type TickOptions, type TickqOptions } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

function expectBadOptions(call: () => unknown, naming: RegExp) {
  let thrown: unknown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected BAD_OPTIONS naming ${naming}`).toBeInstanceOf(TickqError);
  expect((thrown as TickqError).code).toBe("BAD_OPTIONS");
  expect((thrown as TickqError).message).toMatch(naming);
}

describe.each(adapterCases)("options over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "options");
  const jobs = { work: () => {} };

  it("createTickq refuses nonsense numbers and queue lists, naming the option", () => {
    const bad: [Partial<TickqOptions>, RegExp][] = [
      [{ maxResurrections: 0 }, /maxResurrections/],
      [{ maxResurrections: 1.5 }, /maxResurrections/],
      [{ maxRetries: -1 }, /maxRetries/],
      [{ maxRetries: Number.NaN }, /maxRetries/],
      [{ deadMaxJobs: 0 }, /deadMaxJobs/],
      [{ deadMaxAgeSeconds: 0 }, /deadMaxAgeSeconds/],
      [{ idWindowMs: 10 }, /idWindowMs/],
      [{ replayWindowMs: -1 }, /replayWindowMs/],
      [{ redisTimeoutMs: 0 }, /redisTimeoutMs/],
      [{ redisTimeoutMs: 2 ** 31 }, /redisTimeoutMs must be a number from 1 to 2147483647/],
      [{ kick: { budgetMs: 2 ** 31 } }, /kick.budgetMs must be a number from 1 to 2147483647/],
      [{ maxRetries: "3" as unknown as number }, /maxRetries/],
      [{ queues: [] }, /queue/],
      [{ queues: "default" as unknown as string[] }, /queue/],
      [{ queues: [["a", 0]] }, /weight/],
    ];
    for (const [options, naming] of bad) expectBadOptions(() => h.make(jobs, options), naming);
  });

  it("createTickq refuses queue names with whitespace, lone surrogates or nothing", () => {
    for (const name of ["a b", "a\tb", "a\nb", "a\u00a0b", "a\u2028b", "\ud800", "x\udc00", "", "q".repeat(257)]) {
      expectBadOptions(() => h.make(jobs, { queues: [name] }), /queue/);
      expectBadOptions(
        () =>
          h.make(jobs, {
            queues: [
              ["ok", 1],
              [name, 1],
            ],
          }),
        /queue/,
      );
    }
  });

  it("accepts the bounds themselves", async () => {
    const tq = h.make(jobs, {
      maxResurrections: 1,
      maxRetries: 0,
      deadMaxJobs: 1,
      idWindowMs: 1_000,
      redisTimeoutMs: 2_147_483_647,
    });
    await tq.enqueue("work", []);
    // leaseMs 100 is accepted (a loaded machine may well outlive it: then the tick reports leaseLost, and loses nothing)
    const report = await tq.tick({ batch: 1, concurrency: 1, leaseMs: 100, budgetMs: 0, graceMs: 0 });
    expect(report.tickId).toMatch(/^[0-9a-f]{16}$/);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await tq.tick({ batch: 1, concurrency: 1, leaseMs: 5_000, graceMs: 0 })).toMatchObject({ leaseLost: false });
    expect(await tq.stats()).toMatchObject({ processed: 1, queues: { default: 0 }, inflight: 0, ticks: 0 });
  });

  it("tick refuses nonsense options before touching Redis: nothing registered, nothing run", async () => {
    const ran: number[] = [];
    const tq = h.make({ work: (args: [number]) => void ran.push(args[0]) });
    await tq.enqueue("work", [1]);
    const keysBefore = (await h.redis.keys(`${h.prefix}*`)).sort();
    const bad: [TickOptions, RegExp][] = [
      [{ batch: 0 }, /batch/],
      [{ batch: -5 }, /batch/],
      [{ batch: 2.5 }, /batch/],
      [{ concurrency: 0 }, /concurrency/],
      [{ concurrency: Infinity }, /concurrency/],
      [{ leaseMs: -1 }, /leaseMs/],
      [{ leaseMs: 50 }, /leaseMs/],
      [{ budgetMs: Number.NaN }, /budgetMs/],
      [{ budgetMs: -1 }, /budgetMs/],
      [{ graceMs: -1 }, /graceMs/],
      // setTimeout fires a delay of 2³¹ ms or more after 1 ms: each would end or abort the tick at once
      [{ budgetMs: 2 ** 31 }, /budgetMs must be a number from 0 to 2147483647/],
      [{ leaseMs: 2 ** 31 }, /leaseMs must be an integer from 100 to 2147483647/],
      [{ graceMs: 2 ** 31 }, /graceMs must be a number from 0 to 2147483647/],
      [{ cancelCheckMs: 2 ** 31 }, /cancelCheckMs must be a number from 10 to 2147483647/],
      [{ resurrectLimit: -1 }, /resurrectLimit/],
      [{ scheduleLimit: 0.5 }, /scheduleLimit/],
      [{ batch: "10" as unknown as number }, /batch/],
    ];
    for (const [options, naming] of bad) {
      const err = await tq.tick(options).catch((e) => e);
      expect(err, JSON.stringify(options)).toBeInstanceOf(TickqError);
      expect(err.code).toBe("BAD_OPTIONS");
      expect(err.message).toMatch(naming);
    }
    expect(ran).toEqual([]);
    expect((await h.redis.keys(`${h.prefix}*`)).sort()).toEqual(keysBefore);
    expect(await tq.stats()).toMatchObject({ queues: { default: 1 }, ticks: 0, inflight: 0, processed: 0 });
  });

  it("a batch above the cap is clamped, not refused", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(Array.from({ length: 1_200 }, () => ({ name: "work" as const, args: [] })));
    const report = await tq.tick({ batch: 5_000, concurrency: 50 });
    expect(report.fetched).toBe(1_200);
    expect(await tq.stats()).toMatchObject({ processed: 1_200, queues: { default: 0 } });
  });

  it("odd but legal queue names survive a tick's registration: an abandoned job is resurrected, not orphaned", async () => {
    // Control characters (NUL, NEL…) are refused since no terminal prints them (security/printing.test.ts).
    const odd = 'q"u\\o{t}e%é\u00e0😀'; // à is C3 A0 in UTF-8: a byte some readers take for a space
    const tq = h.make({ hang: () => new Promise(() => {}) }, { queues: [odd, "plain"] });
    await tq.enqueue("hang", [1], { queue: odd });
    const first = await tq.tick({ budgetMs: 300, graceMs: 0, leaseMs: 600 });
    expect(first).toMatchObject({ fetched: 1, abandoned: 1 });
    expect(await tq.stats()).toMatchObject({ inflight: 1, ticks: 1, queues: { [odd]: 0 } });

    await sleep(700);
    const ran: string[] = [];
    const healthy = h.make({ hang: (_a: unknown[], ctx) => void ran.push(ctx.queue) }, { queues: [odd] });
    expect(await healthy.tick()).toMatchObject({ resurrected: 1, succeeded: 1 });
    expect(ran).toEqual([odd]);
    expect(await healthy.stats()).toMatchObject({ inflight: 0, ticks: 0, queues: { [odd]: 0 } });
  });

  it("enqueue refuses a queue name a tick could not serve, with BAD_ARGS", async () => {
    const tq = h.make(jobs);
    for (const queue of ["a b", "\ud800", "", "q\u0000", "q\u0085", "q\x1b[2J"]) {
      await expect(tq.enqueue("work", [], { queue })).rejects.toMatchObject({ code: "BAD_ARGS" });
    }
    expect(await h.redis.keys(`${h.prefix}*`)).toEqual([]);
  });
});
