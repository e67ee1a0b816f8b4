// A recurring job of a definition with a priority and a group is enqueued
// with them at each slot, as an enqueue of that job would be: a schedule
// must not lose the order its job asks for.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { QUIET, setClock } from "../recurring/clock.js";

const START = Date.UTC(2030, 0, 1, 12, 0, 0);

describe.each(adapterCases)("recurring jobs with priority and group over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "order-recurring");

  it("a slot's job carries its definition's priority and its args' group", async () => {
    const ran: { priority?: number; group?: string }[] = [];
    const tq = h.make(
      {
        report: {
          perform: (_args: [string], ctx) =>
            void ran.push({ priority: ctx.payload.tickq_priority, group: ctx.payload.tickq_group }),
          priority: 4,
          group: ([tenant]: [string]) => tenant,
        },
      },
      { schedules: { nightly: { every: 60_000, job: "report", args: ["t-1"] } }, logger: QUIET },
    );
    await setClock(h.redis, [tq], START + 10_000);
    await tq.tick();
    await setClock(h.redis, [tq], START + 70_000);
    await tq.tick();
    expect(ran.length).toBeGreaterThan(0);
    expect(ran[0]).toEqual({ priority: 4, group: "t-1" });
  });

  it("a schedule whose job's group function throws is refused at createTickq", () => {
    expect(() =>
      h.make(
        {
          report: {
            perform: () => {},
            group: () => {
              throw new Error("no tenant");
            },
          },
        },
        { schedules: { nightly: { every: 60_000, job: "report" } }, logger: QUIET },
      ),
    ).toThrow(/group threw: no tenant/);
  });
});
