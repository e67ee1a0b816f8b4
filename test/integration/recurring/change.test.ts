// A spec changed in code takes effect at the next tick; a schedule removed
// from code stops, and is pruned after the grace period, not before: while
// an older deployment still declares it (a rolling deploy), it keeps running.
import { describe, expect, it } from "vitest";
import type { Schedules } from "../../../src/index.js";
import { PRUNE_GRACE_MS } from "../../../src/recurring/pass.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { MINUTE, QUIET, recorder, setClock } from "./clock.js";

const START = Date.UTC(2030, 0, 1, 10, 0, 0);
const T = (minutes: number, seconds = 0) => START + minutes * MINUTE + seconds * 1_000;

describe.each(adapterCases)("schedule changes over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sched-change");

  it("a new spec takes effect at the next tick; new args apply from the next slot without moving it", async () => {
    const rec = recorder();
    const seen: unknown[] = [];
    const jobs = { work: (args: unknown[], ctx: { jid: string }) => void (rec.job(args, ctx), seen.push(args[0])) };
    const hourly = h.make(jobs, { schedules: { s: { cron: "0 * * * *", job: "work", args: ["v1"] } }, logger: QUIET });
    await setClock(h.redis, [hourly], T(0, 30));
    await hourly.tick();
    expect((await hourly.schedules())[0]).toMatchObject({ name: "s", inSync: true, nextRunAt: new Date(T(60)) });

    const tenMinutes = h.make(jobs, {
      schedules: { s: { cron: "*/10 * * * *", job: "work", args: ["v2"] } },
      logger: QUIET,
    });
    await setClock(h.redis, [tenMinutes, hourly], T(5, 30));
    expect(await tenMinutes.tick()).toMatchObject({ recurring: 0 });
    expect((await tenMinutes.schedules())[0]).toMatchObject({ inSync: true, nextRunAt: new Date(T(10)) });
    expect((await hourly.schedules())[0]).toMatchObject({ inSync: false });
    await setClock(h.redis, [tenMinutes], T(10, 30));
    await tenMinutes.tick();
    expect(rec.slots("s")).toEqual([T(10)]);

    const newArgs = h.make(jobs, {
      schedules: { s: { cron: "*/10 * * * *", job: "work", args: ["v3"] } },
      logger: QUIET,
    });
    await setClock(h.redis, [newArgs], T(20, 5));
    await newArgs.tick(); // syncs and claims 10:20 in one call, with the new args
    expect(rec.slots("s")).toEqual([T(10), T(20)]);
    expect(seen).toEqual(["v2", "v3"]);
  });

  it("removal: stops at once where no deployment declares it, is pruned after the grace period, and keeps running while an old deployment still ticks", async () => {
    const rec = recorder();
    const jobs = { work: rec.job };
    const both: Schedules<"work"> = {
      keep: { cron: "* * * * *", job: "work" },
      gone: { cron: "* * * * *", job: "work" },
    };
    const oldCode = h.make(jobs, { schedules: both, logger: QUIET });
    const newCode = h.make(jobs, { schedules: { keep: both.keep! }, logger: QUIET });
    const tick = async (tq: typeof oldCode, at: number) => {
      await setClock(h.redis, [tq], at);
      return tq.tick();
    };
    await tick(oldCode, T(0, 10));
    await tick(oldCode, T(1, 10));
    expect(rec.slots("gone")).toEqual([T(1)]);

    // a rolling deploy: both tick for five minutes; the old code still runs `gone`
    for (let m = 2; m <= 6; m++) {
      await tick(newCode, T(m, 5));
      await tick(oldCode, T(m, 20));
    }
    expect(rec.slots("gone")).toEqual([1, 2, 3, 4, 5, 6].map((m) => T(m)));
    expect((await newCode.stats()).schedules).toBe(2);

    // the old code is gone: nothing more runs; listed as orphaned, then pruned after the grace
    // (the grace counts from the first sync after the old code's last tick, which had declared it again: 10:07)
    const graceMinutes = PRUNE_GRACE_MS / MINUTE;
    for (let m = 7; m <= 6 + graceMinutes; m++) await tick(newCode, T(m, 5));
    expect(rec.slots("gone")).toEqual([1, 2, 3, 4, 5, 6].map((m) => T(m)));
    const listed = await newCode.schedules();
    expect(listed.map((s) => [s.name, s.declared, s.orphanedAt !== null])).toEqual([
      ["gone", false, true],
      ["keep", true, false],
    ]);
    expect(listed[0]!.spec).toMatchObject({ cron: "* * * * *", job: "work" });
    await tick(newCode, T(8 + graceMinutes, 5));
    expect((await newCode.schedules()).map((s) => s.name)).toEqual(["keep"]);
    expect((await newCode.stats()).schedules).toBe(1);
    expect(rec.slots("keep").at(-1)).toBe(T(8 + graceMinutes));
    expect(await h.redis.hlen(`${h.prefix}schedules:last`)).toBe(1);
  });

  it("a deployment that declares no schedules prunes them all after the grace", async () => {
    const rec = recorder();
    const old = h.make({ work: rec.job }, { schedules: { a: { every: MINUTE, job: "work" } }, logger: QUIET });
    const bare = h.make({ work: rec.job }, { logger: QUIET });
    await setClock(h.redis, [old, bare], T(0, 10));
    await old.tick();
    await bare.tick();
    expect(await h.redis.exists(`${h.prefix}schedules:digest`)).toBe(0);
    await setClock(h.redis, [bare], T(0, 10) + PRUNE_GRACE_MS + 1_000);
    await bare.tick();
    expect(await bare.schedules()).toEqual([]);
    expect(rec.runs.size).toBe(0);
  });
});
