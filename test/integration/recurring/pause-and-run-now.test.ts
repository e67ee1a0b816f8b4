// tq.schedules.pause / resume / runNow: a paused schedule's slots pass and
// enqueue nothing (its next run moves on, so resuming runs no slot it
// passed); resumed, it runs from its next slot; run now enqueues its job at
// once with its args and queue, beside its slots. tq.schedules() says which
// are paused and their next three runs. An unknown name is refused, naming
// the schedules there are.
import { describe, expect, it } from "vitest";
import { TickqError, type Schedules } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { MINUTE, QUIET, recorder, setClock } from "./clock.js";

const at = (iso: string) => Date.parse(iso);

describe.each(adapterCases)("pausing and running schedules now over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sched-pause");

  it("pauses a schedule's slots, resumes from its next slot, and runs it now on demand", async () => {
    const rec = recorder();
    const schedules: Schedules<"sync"> = {
      nightly: { cron: "0 9 * * *", timezone: "Europe/Berlin", job: "sync", args: [7] },
      often: { every: 10 * MINUTE, job: "sync" },
    };
    const tq = h.make({ sync: rec.job }, { schedules, logger: QUIET });
    await setClock(h.redis, [tq], at("2030-01-01T10:00:30Z"));
    await tq.tick();
    const listed = await tq.schedules();
    expect(listed.find((s) => s.name === "often")).toMatchObject({
      paused: false,
      nextRuns: [at("2030-01-01T10:10:00Z"), at("2030-01-01T10:20:00Z"), at("2030-01-01T10:30:00Z")].map(
        (t) => new Date(t),
      ),
    });
    expect(listed.find((s) => s.name === "nightly")!.nextRuns[0]).toEqual(new Date(at("2030-01-02T08:00:00Z")));

    await tq.schedules.pause("often");
    expect((await tq.schedules()).find((s) => s.name === "often")!.paused).toBe(true);
    await setClock(h.redis, [tq], at("2030-01-01T10:10:30Z"));
    expect((await tq.tick()).recurring).toBe(0);
    expect(rec.slots("often")).toEqual([]);
    // its due time moved on while paused
    expect((await tq.schedules()).find((s) => s.name === "often")!.nextRunAt).toEqual(
      new Date(at("2030-01-01T10:20:00Z")),
    );

    await tq.schedules.resume("often");
    await setClock(h.redis, [tq], at("2030-01-01T10:20:30Z"));
    await tq.tick();
    expect(rec.slots("often")).toEqual([at("2030-01-01T10:20:00Z")]);

    const jid = await tq.schedules.runNow("nightly");
    expect(await tq.jobs.find(jid)).toMatchObject({ state: "queued", name: "sync", job: { args: [7] } });
    await tq.tick();
    expect(rec.runs.get(jid)).toBe(1);

    await expect(tq.schedules.pause("nigthly")).rejects.toThrow(
      new TickqError("NOT_FOUND", 'no recurring job named "nigthly" (schedules: nightly, often)'),
    );
  });
});
