// The client resends a call whose reply was lost after Redis ran it. Once,
// a resent step deleted the whole next batch (acked as "the list has the
// length I expect"): 40 jobs, batch 10, jobs 10–19 never ran and
// stats.processed said 40. Now every call is numbered and a replay answers
// the kept reply.
import { afterEach, describe, expect, it } from "vitest";
import { moveJobs } from "../../../src/admin/move.js";
import { createTickq } from "../../../src/index.js";
import { createRuntime } from "../../../src/runtime.js";
import { adapterCases } from "../../helpers/adapters.js";
import { openDropping, type DroppingAdapter } from "../../helpers/dropping.js";
import { useHarness } from "../../helpers/harness.js";

const QUIET = { info() {}, warn() {}, error() {} };

describe.each(adapterCases)("a dropped reply, resent, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "dropped");
  let dropping: DroppingAdapter | undefined;
  afterEach(async () => dropping?.close());

  async function drainWithDrop(when: "begin" | "step" | "finish") {
    dropping = await openDropping(adapterCase.name, h.prefix);
    const runs = new Map<number, number>();
    let dropped: Promise<boolean> = Promise.resolve(false);
    const jobs = {
      work: (args: [number]) => {
        runs.set(args[0], (runs.get(args[0]) ?? 0) + 1);
        if ((when === "step" && args[0] === 0) || (when === "finish" && args[0] === 39)) dropped = dropping!.dropNext();
      },
    };
    const events = new Map<number, number>();
    const on = {
      succeeded: (e: { args: unknown[] }) =>
        void events.set(e.args[0] as number, (events.get(e.args[0] as number) ?? 0) + 1),
    };
    const tq = createTickq({ redis: dropping.adapter, prefix: h.prefix, jobs, logger: QUIET, on });
    await tq.enqueueBulk(Array.from({ length: 40 }, (_, i) => ({ name: "work", args: [i] })));
    if (when === "begin") dropped = dropping.dropNext();
    const report = await tq.tick({ batch: 10, concurrency: 1 });
    expect(await dropped).toBe(true);
    return { runs, events, report, stats: await tq.stats() };
  }

  for (const when of ["begin", "step", "finish"] as const) {
    it(`of ${when}: every job runs exactly once, processed counts 40, each fires one event`, async () => {
      const { runs, events, report, stats } = await drainWithDrop(when);
      expect(events.size).toBe(40);
      expect([...events.values()].every((n) => n === 1)).toBe(true);
      expect([...runs.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      expect([...runs.values()].every((n) => n === 1)).toBe(true);
      expect(report).toMatchObject({ succeeded: 40, fetched: 40, leaseLost: false });
      expect(stats).toMatchObject({ processed: 40, inflight: 0, queues: { default: 0 } });
    });
  }

  it("of a jobs API move: the resent call answers its first reply and moves nothing more", async () => {
    dropping = await openDropping(adapterCase.name, h.prefix);
    const job = JSON.stringify({ class: "work", args: [], jid: "d1", queue: "default", retry: true });
    await h.redis.zadd(`${h.prefix}dead`, 1, job);
    const runtime = createRuntime({ redis: dropping.adapter, prefix: h.prefix, jobs: {}, logger: QUIET });
    const dropped = dropping.dropNext();
    expect(await moveJobs(runtime, [{ from: "dead", raw: job, action: "push" }])).toBe("1");
    expect(await dropped).toBe(true);
    const queued = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    expect(queued).toHaveLength(1);
    expect(queued[0]!.startsWith(job.slice(0, -1))).toBe(true); // the job, with enqueued_at set by the move
    expect(await h.redis.zcard(`${h.prefix}dead`)).toBe(0);
  });

  it("of enqueue: a resent enqueue pushes each job once", async () => {
    dropping = await openDropping(adapterCase.name, h.prefix);
    const tq = createTickq({ redis: dropping.adapter, prefix: h.prefix, jobs: { work: () => {} }, logger: QUIET });
    const dropped = dropping.dropNext();
    const jids = await tq.enqueueBulk(Array.from({ length: 20 }, () => ({ name: "work", args: [] })));
    expect(await dropped).toBe(true);
    const queued = (await h.redis.lrange(`${h.prefix}queue:default`, 0, -1)).map((j) => JSON.parse(j).jid);
    expect(queued.sort()).toEqual([...jids].sort());
  });
});
