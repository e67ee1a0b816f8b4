// Exactly one job per slot, whatever ticks: 8 ticks at once over a
// simulated hour, two deployments of the same schedule, a replayed begin
// and a replayed schedules call.
import { afterEach, describe, expect, it } from "vitest";
import { createTickq, type RedisAdapter, type Schedules } from "../../../src/index.js";
import * as protocol from "../../../src/protocol/index.js";
import { scriptSha } from "../../../src/redis/script-sha.js";
import { adapterCases } from "../../helpers/adapters.js";
import { openDropping, type DroppingAdapter } from "../../helpers/dropping.js";
import { useHarness } from "../../helpers/harness.js";
import { MINUTE, QUIET, recorder, setClock } from "./clock.js";

const START = Date.UTC(2030, 0, 1, 12, 0, 0);
const minutes = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => START + (from + i) * MINUTE);

describe.each(adapterCases)("once per slot over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sched-once");
  let dropping: DroppingAdapter | undefined;
  afterEach(async () => {
    await dropping?.close();
    dropping = undefined;
  });

  it("8 concurrent ticks over a simulated hour of `* * * * *`: one job per minute slot", async () => {
    const rec = recorder();
    const schedules: Schedules<"minute"> = { everyMinute: { cron: "* * * * *", job: "minute" } };
    const connections = Array.from({ length: 8 }, () => adapterCase.open());
    try {
      const tqs = connections.map((c) =>
        createTickq({ redis: c.adapter, prefix: h.prefix, jobs: { minute: rec.job }, schedules, logger: QUIET }),
      );
      // two rounds a minute, at uneven seconds; every round ticks all 8 at once
      for (let second = 15; second <= 3_600 + 15; second += 30) {
        await setClock(h.redis, tqs, START + second * 1_000 + Math.floor(Math.random() * 10_000));
        const reports = await Promise.all(tqs.map((tq) => tq.tick()));
        expect(reports.filter((r) => r.recurring > 0).length).toBeLessThanOrEqual(1);
      }
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
    expect(rec.slots("everyMinute")).toEqual(minutes(1, 60));
    expect([...rec.runs.values()].every((n) => n === 1)).toBe(true);
  });

  it("two deployments with the same schedule, ticking at once, with a replayed begin and a replayed schedules call: no duplicates", async () => {
    dropping = await openDropping(adapterCase.name, h.prefix);
    const rec = recorder();
    const schedules: Schedules<"minute"> = {
      everyMinute: { cron: "* * * * *", job: "minute" },
      often: { every: 20_000, job: "minute", missed: "all" },
    };
    const dropOnce = (sha: string): { adapter: RedisAdapter; dropped: Promise<boolean>[] } => {
      const dropped: Promise<boolean>[] = [];
      const inner = dropping!.adapter;
      return {
        dropped,
        adapter: {
          evalsha: (s, keys, args) => {
            if (s === sha && dropped.length === 0) dropped.push(dropping!.dropNext());
            return inner.evalsha(s, keys, args);
          },
          eval: (text, keys, args) => inner.eval(text, keys, args),
        },
      };
    };
    const a = h.make({ minute: rec.job }, { schedules, logger: QUIET });
    await setClock(h.redis, [a], START + 15_000);
    await a.tick(); // syncs the declaration; scripts are loaded for the EVALSHA below

    const begin = await scriptSha(protocol.begin.script);
    const schedulesSha = await scriptSha(protocol.recurring.script);
    for (const [round, sha] of [
      [1, begin],
      [2, schedulesSha],
      [3, begin],
      [4, schedulesSha],
    ] as const) {
      const replaying = dropOnce(sha);
      const b = createTickq({
        redis: replaying.adapter,
        prefix: h.prefix,
        jobs: { minute: rec.job },
        schedules,
        logger: QUIET,
      });
      await setClock(h.redis, [a, b], START + round * MINUTE + 5_000);
      // A dropped schedules call needs b to find the slot due: b goes first there.
      if (sha === schedulesSha) await b.tick();
      await Promise.all([a.tick(), b.tick(), b.tick()]);
      expect(await replaying.dropped[0]).toBe(true);
    }
    expect(rec.slots("everyMinute")).toEqual(minutes(1, 4));
    expect(rec.slots("often")).toEqual(
      Array.from({ length: 12 }, (_, i) => START + 20_000 * (i + 1)).filter((t) => t <= START + 4 * MINUTE + 5_000),
    );
    expect([...rec.runs.values()].every((n) => n === 1)).toBe(true);
  });
});
