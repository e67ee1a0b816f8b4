// Once a run's cancel has answered "cancelled" (tq.workflows.cancel, or
// POST /workflows/:id/cancel, which the CLI and the dashboard share), no step
// function of that run starts. The race: the tick commits a step, the cancel
// lands while that commit's reply is on its way back, and the tick, hearing
// the commit applied, would start the next step after the cancel answered.
// Here the reply is held until the cancel answered, so the race is certain.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import * as protocol from "../../../src/protocol/index.js";
import type { Tickq } from "../../../src/index.js";
import type { JobRegistry } from "../../../src/job/definition.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { holdReplies } from "../../helpers/held-replies.js";

const SECRET = "wf-cancel-wait-secret";

type AnyTickq = Tickq<JobRegistry>;
type Door = { door: string; cancel(tq: AnyTickq, id: string): Promise<string> };

const doors: Door[] = [
  { door: "tq.workflows.cancel", cancel: (tq, id) => tq.workflows.cancel(id) },
  {
    door: "POST /workflows/:id/cancel",
    async cancel(tq, id) {
      const app = createApp({ tickq: tq, secrets: [SECRET] });
      const res = await app.request(`/workflows/${id}/cancel`, {
        method: "POST",
        headers: { Authorization: `Bearer ${SECRET}` },
      });
      return ((await res.json()) as { status: string }).status;
    },
  },
];

describe.each(adapterCases)("a workflow cancel over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-cancel-wait");

  it.each(doors)("through $door: no step starts after it answered cancelled", async ({ cancel }) => {
    const hold = holdReplies(h.adapter, protocol.workflow_tick.script);
    const started: { name: string; at: number }[] = [];
    const tq = h.make(
      {},
      {
        redis: hold.adapter,
        workflows: {
          steps: {
            run: async (_: null, step) => {
              for (const name of ["a", "b", "c", "d"]) {
                await step.run(name, () => {
                  started.push({ name, at: performance.now() });
                  // The call that commits this step will run, and its reply wait for the cancel.
                  if (name === "a") hold.arm();
                  return name;
                });
              }
            },
          },
        },
      },
    ) as unknown as AnyTickq;
    const id = await tq.workflows.start("steps", null);
    const ticking = tq.tick({ budgetMs: 6_000, cancelCheckMs: 100 });
    await hold.held();
    // A cancel that never answers must not hang the test: the reply goes back within 5 s anyway.
    const late = setTimeout(() => hold.release(), 5_000);
    const status = await cancel(tq, id);
    const answered = performance.now();
    hold.release();
    clearTimeout(late);
    await ticking;

    expect(status).toBe("cancelled");
    expect(started.filter((s) => s.at > answered).map((s) => s.name)).toEqual([]);
    expect(started.map((s) => s.name)).toContain("a");
    expect((await tq.workflows.get(id))?.status).toBe("cancelled");
  });
});
