// An event reaches exactly the runs waiting for its own event and match,
// whatever characters they hold: pairs that concatenate alike ("a:b"+"c" and
// "a"+":bc"), Redis pattern characters (`*`, `?`, `[`), hash-tag braces, and
// unicode (an emoji, a combining accent, a lone surrogate) never reach
// another pair's runs, and every run resolves once.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const PAIRS: [string, string][] = [
  ["a:b", "c"],
  ["a", ":bc"],
  ["a:bc", ""],
  ["1", "1:x"],
  ["1:1", ":x"],
  ["e*", "*"],
  ["e", "**"],
  ["e?[x]", "{tag}"],
  ["{e}", "}{"],
  ["é", "😀"],
  ["e\u0301", "😀"],
  ["ü", "\ud800"],
];

describe.each(adapterCases)("event matches over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-match");

  it("an event resolves only the runs waiting for its own event and match", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          w: {
            run: async (input: { event: string; match: string }, step) =>
              step.waitForEvent("w", { event: input.event, match: input.match }),
          },
        },
      },
    );
    const ids = await Promise.all(PAIRS.map(([event, match]) => tq.workflows.start("w", { event, match })));
    await tq.tick({ budgetMs: 1_000 });
    for (const id of ids) expect((await tq.workflows.get(id))?.status).toBe("waiting");
    const resolved: number[] = [];
    for (const [i, [event, match]] of PAIRS.entries()) {
      resolved.push(await tq.workflows.sendEvent(event, { match, data: i }));
    }
    expect(resolved).toEqual(PAIRS.map(() => 1));
    await tq.tick({ budgetMs: 1_000 });
    for (const [i, id] of ids.entries()) expect(await tq.workflows.result(id, { timeoutMs: 100 })).toBe(i);
    expect(await h.redis.keys(`${h.prefix}wf:wait:*`)).toEqual([]);
  });
});
