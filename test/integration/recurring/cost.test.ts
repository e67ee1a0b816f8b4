// What schedules cost a tick: nothing when none is due and the declaration
// is unchanged, whatever their number; one call when some are due (its jobs
// fetched by that same call); one call when the declaration changed.
import { describe, expect, it } from "vitest";
import type { Schedules } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { MINUTE, QUIET, recorder, setClock } from "./clock.js";

const START = Date.UTC(2030, 0, 1, 10, 0, 0);

function thousand(): Schedules<"work"> {
  const schedules: Schedules<"work"> = {};
  for (let i = 0; i < 1_000; i++)
    schedules[`s${i}`] =
      i % 2 ? { cron: "0 * * * *", job: "work", args: [i] } : { every: 3_600_000, job: "work", args: [i] };
  return schedules;
}

describe.each(adapterCases)("the cost of schedules over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sched-cost");

  it("an idle tick with 1,000 declared, none due, costs what one with none costs; 1,000 due cost one more round trip", async () => {
    const rec = recorder();
    // A Redis that never ran the schedule scripts answers NOSCRIPT once, an extra round trip (a fresh cluster's
    // master, a restarted Redis): a tickq under a sibling prefix (same hash tag, same node) syncs a schedule and
    // runs a due one first, so the counts below are those of a warm script cache.
    const warm = h.make(
      { work: () => {} },
      { prefix: `${h.prefix}warm:`, schedules: { w: { cron: "6 10 * * *", job: "work" } }, logger: QUIET },
    );
    await setClock(h.redis, [warm], START + 5 * MINUTE);
    await warm.tick();
    await setClock(h.redis, [warm], START + 6 * MINUTE + 1_000);
    expect(await warm.tick()).toMatchObject({ recurring: 1, succeeded: 1 });

    const bare = h.make({ work: rec.job }, { logger: QUIET });
    await bare.tick();
    const idleBare = await bare.tick();

    const tq = h.make({ work: rec.job }, { schedules: thousand(), logger: QUIET });
    await setClock(h.redis, [tq], START + 5 * MINUTE);
    const syncing = await tq.tick();
    expect(syncing.roundTrips).toBe(idleBare.roundTrips + 1);
    expect((await tq.stats()).schedules).toBe(1_000);
    const idle = await tq.tick();
    expect(idle.roundTrips).toBe(idleBare.roundTrips);
    expect(idleBare.roundTrips).toBe(2);

    // one comes due: one more round trip, which also fetches its job
    const one = h.make(
      { work: rec.job },
      { schedules: { ...thousand(), single: { cron: "6 10 * * *", job: "work" } }, logger: QUIET },
    );
    await setClock(h.redis, [one], START + 5 * MINUTE);
    await one.tick(); // syncs the new declaration
    await setClock(h.redis, [one], START + 6 * MINUTE + 1_000);
    expect(await one.tick()).toMatchObject({ recurring: 1, succeeded: 1, roundTrips: idleBare.roundTrips + 1 });

    // all 1,000 come due at 11:00: one call claims them all; then the tick
    // drains them exactly as it drains 1,000 queued jobs
    await bare.enqueueBulk(Array.from({ length: 1_000 }, (_, i) => ({ name: "work", args: [i] })));
    const queued = await bare.tick();
    expect(queued.succeeded).toBe(1_000);
    await setClock(h.redis, [one], START + 60 * MINUTE + 1_000);
    const due = await one.tick();
    expect(due).toMatchObject({ recurring: 1_000, succeeded: 1_000 });
    // (steps vary by a call or so with how acks group as jobs finish)
    expect(due.roundTrips).toBeLessThanOrEqual(queued.roundTrips + 2);
    expect(rec.runs.size).toBe(2_001);
  });
});
