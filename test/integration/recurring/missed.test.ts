// After a gap without ticks: "latest" runs the last missed slot, "all" each
// one (capped), "none" skips to the next. And a 02:30 Europe/Berlin job runs
// once on the DST days, however often ticks come.
import { describe, expect, it } from "vitest";
import type { Schedules } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { MINUTE, QUIET, recorder, setClock } from "./clock.js";

const at = (iso: string) => Date.parse(iso);

describe.each(adapterCases)("missed slots over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sched-missed");

  it("after an hour without ticks: latest runs the last slot once, all each slot (capped), none skips to the next", async () => {
    const rec = recorder();
    const schedules: Schedules<"sync"> = {
      latest: { cron: "*/5 * * * *", job: "sync" },
      all: { cron: "*/5 * * * *", job: "sync", missed: "all" },
      capped: { cron: "*/5 * * * *", job: "sync", missed: "all", maxMissed: 3 },
      none: { cron: "*/5 * * * *", job: "sync", missed: "none" },
      interval: { every: 10 * MINUTE, job: "sync", missed: "all" },
    };
    const tq = h.make({ sync: rec.job }, { schedules, logger: QUIET });
    await setClock(h.redis, [tq], at("2030-01-01T10:00:30Z"));
    expect((await tq.tick()).recurring).toBe(0); // first sync: the next slots are 10:05 and 10:10

    await setClock(h.redis, [tq], at("2030-01-01T11:02:30Z"));
    const report = await tq.tick();
    const slots = (...hm: string[]) => hm.map((t) => at(`2030-01-01T${t}:00Z`));
    expect(rec.slots("latest")).toEqual(slots("11:00"));
    expect(rec.slots("all")).toEqual(
      slots("10:05", "10:10", "10:15", "10:20", "10:25", "10:30", "10:35", "10:40", "10:45", "10:50", "10:55", "11:00"),
    );
    expect(rec.slots("capped")).toEqual(slots("10:50", "10:55", "11:00"));
    expect(rec.slots("none")).toEqual([]);
    expect(rec.slots("interval")).toEqual(slots("10:10", "10:20", "10:30", "10:40", "10:50", "11:00"));
    expect(report).toMatchObject({ recurring: 1 + 12 + 3 + 6, succeeded: 22 });

    // back on time: every policy runs the one slot due
    await setClock(h.redis, [tq], at("2030-01-01T11:05:40Z"));
    await tq.tick();
    for (const name of ["latest", "all", "capped", "none"])
      expect(rec.slots(name).at(-1)).toBe(at("2030-01-01T11:05:00Z"));
    expect([...rec.runs.values()].every((n) => n === 1)).toBe(true);
    const listed = await tq.schedules();
    expect(listed.find((s) => s.name === "none")).toMatchObject({
      nextRunAt: new Date(at("2030-01-01T11:10:00Z")),
      lastRunAt: new Date(at("2030-01-01T11:05:00Z")),
      lastJid: `none:${at("2030-01-01T11:05:00Z")}`,
    });
  });

  for (const [day, from, to, expected] of [
    [
      "spring-forward",
      "2026-03-28T12:00:00Z",
      "2026-03-30T03:00:00Z",
      ["2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"],
    ],
    ["fall-back", "2026-10-24T12:00:00Z", "2026-10-26T03:00:00Z", ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"]],
  ] as const) {
    it(`a 02:30 Europe/Berlin job runs once on the ${day} day, ticked every 10 minutes`, async () => {
      const rec = recorder();
      const tq = h.make(
        { nightly: rec.job },
        {
          schedules: { nightly: { cron: "30 2 * * *", timezone: "Europe/Berlin", job: "nightly", missed: "all" } },
          logger: QUIET,
        },
      );
      for (let t = at(from); t <= at(to); t += 10 * MINUTE) {
        await setClock(h.redis, [tq], t + 7_000);
        await tq.tick();
      }
      expect(rec.slots("nightly")).toEqual(expected.map(at));
      expect([...rec.runs.values()]).toEqual([1, 1]);
    });
  }
});
