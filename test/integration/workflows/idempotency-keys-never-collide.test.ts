// ctx.idempotencyKey names one step of one run: no two (run id, step name)
// pairs share it, however the names are chosen (run "order-7:step:book"
// step "x" and run "order-7" step "book:step:x" used to share
// "order-7:step:book:step:x", so a payment API deduplicated one against the
// other). A run started before the length-prefixed form keeps the key it
// began with (step.invoke derives its job's jid from it).
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("step idempotency keys over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-idem");

  it("two runs whose ids and step names concatenate alike get different keys", async () => {
    const keys = new Map<string, string>();
    const tq = h.make(
      {},
      {
        workflows: {
          pay: {
            run: async (input: { step: string }, step) =>
              step.run(input.step, (ctx) => void keys.set(`${input.step}`, ctx.idempotencyKey)),
          },
        },
      },
    );
    await tq.workflows.start("pay", { step: "x" }, { id: "order-7:step:book" });
    await tq.workflows.start("pay", { step: "book:step:x" }, { id: "order-7" });
    await tq.tick({ budgetMs: 2_000 });
    expect(keys.size).toBe(2);
    expect(keys.get("x")).not.toBe(keys.get("book:step:x"));
    expect(keys.get("x")).toBe("17:order-7:step:book:step:x");
    expect(keys.get("book:step:x")).toBe("7:order-7:step:book:step:x");
  });

  it("a run started before the change keeps its key mid-run", async () => {
    const seen: string[] = [];
    const tq = h.make(
      {},
      {
        workflows: {
          old: {
            run: async (_: null, step) => {
              await step.run("a", (ctx) => void seen.push(ctx.idempotencyKey));
              await step.sleep("nap", 1);
              await step.run("b", (ctx) => void seen.push(ctx.idempotencyKey));
            },
          },
        },
      },
    );
    // A run as an earlier version stored it: its hash has no key form.
    await tq.workflows.start("old", null, { id: "r:1" });
    await h.redis.hdel(`${h.prefix}wf:run:r:1`, "ikey");
    for (let i = 0; i < 20 && (await tq.workflows.get("r:1"))?.status !== "completed"; i++) {
      await tq.tick({ budgetMs: 500 });
    }
    expect(seen).toEqual(["r:1:step:a", "r:1:step:b"]);
  });
});
