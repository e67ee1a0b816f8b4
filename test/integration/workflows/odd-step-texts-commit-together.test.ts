// Runs whose step names, results, sleeps, waits and outputs hold odd texts (NUL, the unit and record
// separators, a leading "j", unicode, empty) commit in the same workflow calls (packed, or apart once one
// holds the record separator) and each ends with what its function returned, each step run once.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const TAGS = ["", "j", "\x1e", "\x1f\x00", "é😀", "j\x1e"];

describe.each(adapterCases)("odd step texts committed together over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-oddtexts");

  it("every run ends with its own output, its steps run once, its wait resolved by its event", async () => {
    const ran: Record<string, number> = {};
    const tq = h.make(
      {},
      {
        workflows: {
          odd: {
            retry: 0,
            run: async (input: { tag: string }, step) => {
              const t = input.tag;
              const first = await step.run(`a${t}`, () => {
                ran[`a${t}`] = (ran[`a${t}`] ?? 0) + 1;
                return `${t}\x00${t}`;
              });
              const many = await Promise.all(
                Array.from({ length: 12 }, (_, i) => step.run(`${t}m${i}`, () => `${i}${t}`)),
              );
              await step.sleep(`j${t}`, 0);
              const got = await step.waitForEvent<string>(`w${t}`, { event: `e${t}`, match: t, timeout: "1h" });
              return { t, first, many: many.join(""), got };
            },
          },
        },
      },
    );
    const ids = [];
    for (const tag of TAGS) ids.push(await tq.workflows.start("odd", { tag }));
    for (let k = 0; k < 4; k++) await tq.tick({ budgetMs: 2_000 });
    for (const id of ids) expect((await tq.workflows.get(id))?.status).toBe("waiting");
    for (const tag of TAGS) expect(await tq.workflows.sendEvent(`e${tag}`, { match: tag, data: `d${tag}` })).toBe(1);
    for (let k = 0; k < 3; k++) await tq.tick({ budgetMs: 2_000 });
    for (const [k, id] of ids.entries()) {
      const t = TAGS[k]!;
      expect(await tq.workflows.result(id, { timeoutMs: 1_000 })).toEqual({
        t,
        first: `${t}\x00${t}`,
        many: Array.from({ length: 12 }, (_, i) => `${i}${t}`).join(""),
        got: `d${t}`,
      });
    }
    expect(ran).toEqual(Object.fromEntries(TAGS.map((t) => [`a${t}`, 1])));
  });
});
