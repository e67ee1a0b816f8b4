// A Redis restart the scripts cannot tell (within the second of the last
// one, or with detection off: src/lua/lib/tick/restart-hold.lua) can forget a
// run's claim while its tick, lease held, still runs the run's step. The
// step's commit is then refused (the run is no longer this tick's with that
// fence) and the step runs again. The tick's report must say so
// (`workflows.lost`) and the tick warns: before, it reported only the steps
// it committed, and a caller that takes "lease kept, nothing abandoned" as
// "every step that succeeded is committed" (the chaos rollback worker) could
// not tell a refused commit from a defect. Here the claim is forgotten by
// hand, as the rollback leaves it: the run due again, with no owner or fence.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("a workflow commit Redis refuses over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-refused");

  it("counts the run in the tick's workflows.lost, warns, and the step runs again", async () => {
    let starts = 0;
    const forgetClaim = async (id: string) => {
      const p = h.prefix;
      await h.redis.hdel(`${p}wf:run:${id}`, "owner", "fence");
      await h.redis.zrem(`${p}wf:held`, id);
      await h.redis.zadd(`${p}wf:due`, Date.now(), id);
    };
    const tq = h.make(
      {},
      {
        workflows: {
          pair: {
            run: async (_: null, step) => [
              await step.run("a", async () => {
                starts++;
                if (starts === 1) await forgetClaim("r1");
                return "a";
              }),
              await step.run("b", () => "b"),
            ],
          },
        },
      },
    );
    await tq.workflows.start("pair", null, { id: "r1" });
    const report = await tq.tick({ budgetMs: 3_000 });
    expect(report.leaseLost).toBe(false);
    // The refused execution, then the run claimed again by the same tick (it was due): a and b committed.
    expect(report.workflows).toMatchObject({ lost: 1, steps: 2, completed: 1, abandoned: 0 });
    expect(starts).toBe(2);
    expect(
      h.logged.filter((m) => m.includes("Redis refused the commits of 1 workflow run(s) it held (r1)")),
    ).toHaveLength(1);
    expect(await tq.workflows.result("r1", { timeoutMs: 100 })).toEqual(["a", "b"]);
  });

  it("a tick whose commits all landed reports none lost and warns of none", async () => {
    const tq = h.make({}, { workflows: { one: { run: async (_: null, step) => step.run("a", () => 1) } } });
    await tq.workflows.start("one", null);
    const report = await tq.tick({ budgetMs: 2_000 });
    expect(report.workflows).toMatchObject({ lost: 0, steps: 1, completed: 1 });
    expect(h.logged.filter((m) => m.includes("refused"))).toEqual([]);
  });
});
