// A tick's steps name each whole fetched group of plain jobs by its place alone, no job's text sent
// (src/tick/passes/ack.ts). When the script cannot cut a group so (here: a job elsewhere holds a
// resurrection count, which every settled job's must be dropped beside, by its text; or a job of
// an older group that failed, taken out of the list's middle), it answers the group's entries
// missed and leaves them listed; the tick sends them by text with its next acks and names no
// group of that queue by place alone again. Every job runs once, is counted once, fires one
// event, and the tick's lists end empty.
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

/** The adapter, counting the calls that name a group by place alone ("PLACE+COUNT"). */
function counting(adapter: RedisAdapter, seen: { byPlace: number }): RedisAdapter {
  const note = (args: string[]) => {
    if (args.some((a) => /^\d+\+\d+$/.test(a))) seen.byPlace++;
  };
  return {
    evalsha: (sha, keys, args) => (note(args), adapter.evalsha(sha, keys, args)),
    eval: (script, keys, args) => (note(args), adapter.eval(script, keys, args)),
    separateRequests: adapter.separateRequests,
    cluster: adapter.cluster,
  };
}

const JOBS = 60;

async function drained(redis: Redis, prefix: string): Promise<void> {
  expect(await redis.keys(`${prefix}inproc:*`)).toEqual([]);
  expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
}

describe.each(adapterCases)("groups not cut by place alone are acked by text over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ack-place-resend");

  it("a resurrection count elsewhere: each group goes again by text, every job settled once", async () => {
    const ran: number[] = [];
    const jobs = { work: ([n]: [number]) => void ran.push(n) };
    await h.make(jobs).enqueueBulk(Array.from({ length: JOBS }, (_, n) => ({ name: "work" as const, args: [n] })));
    await h.redis.hset(`${h.prefix}resurrections`, "a job run elsewhere", "1");
    const seen = { byPlace: 0 };
    const ticker = h.make(jobs, { redis: counting(h.adapter, seen) });
    const heard: string[] = [];
    ticker.on("succeeded", (e) => void heard.push(e.jid));
    const report = await ticker.tick({ budgetMs: 20_000, batch: 10, concurrency: 10 });
    expect(report).toMatchObject({ fetched: JOBS, succeeded: JOBS, leaseLost: false });
    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: JOBS }, (_, n) => n));
    expect(new Set(heard).size).toBe(JOBS);
    expect(heard).toHaveLength(JOBS);
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBe(String(JOBS));
    await drained(h.redis, h.prefix);
    // By text once a step answered a group missed (a step beside it may have gone already). Whether a
    // step names a whole group at all depends on how the jobs' ends fall between steps, which load
    // moves (on a loaded machine none did): the script's side of that path is run deterministically in
    // test/integration/replay/ack-by-place-alone-twice.test.ts.
    expect(seen.byPlace).toBeLessThanOrEqual(2);
  });

  it("a failure taken out of the list's middle: the groups behind it go again by text, every job settled once", async () => {
    const ran: number[] = [];
    const jobs = {
      work: {
        perform: ([n]: [number]) => {
          ran.push(n);
          if (n === 3) throw new Error("job 3 fails");
        },
        retry: false,
      },
    };
    await h.make(jobs).enqueueBulk(Array.from({ length: JOBS }, (_, n) => ({ name: "work" as const, args: [n] })));
    const seen = { byPlace: 0 };
    const ticker = h.make(jobs, { redis: counting(h.adapter, seen) });
    const heard: string[] = [];
    ticker.on("succeeded", (e) => void heard.push(e.jid));
    const report = await ticker.tick({ budgetMs: 20_000, batch: 10, concurrency: 10 });
    expect(report).toMatchObject({ fetched: JOBS, succeeded: JOBS - 1, dead: 1, leaseLost: false });
    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: JOBS }, (_, n) => n));
    expect(new Set(heard).size).toBe(JOBS - 1);
    expect(heard).toHaveLength(JOBS - 1);
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBe(String(JOBS));
    expect(await h.redis.zcard(`${h.prefix}dead`)).toBe(1);
    await drained(h.redis, h.prefix);
  });
});
