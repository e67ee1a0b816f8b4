// An id with thousands of payloads answered joined (lib/common/joined.lua): its payloads span
// many 8 KiB chunks, the chunk edges falling inside its run of payloads and after multi-byte
// characters, beside ids of one payload each. Each handler gets its own payloads in score order,
// with their scores, whatever order they were enqueued in.
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

interface Run {
  id: string;
  payloads: unknown[];
  scores: number[];
}

describe.each(adapterCases)("an id of many payloads answered joined over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-joined-many");

  it("3,000 payloads of one id across chunks, between two ids of one: each its own, in score order", async () => {
    const runs: Run[] = [];
    const tq = h.make(
      {},
      {
        ordered: {
          idx: {
            perform: (id: string, payloads: unknown[], ctx: OrderedContext) =>
              void runs.push({ id, payloads, scores: ctx.scores }),
          },
        },
      },
    );
    // Scores negative, fractional and in exponent form; enqueued highest first.
    const score = (k: number) => (k - 1_500) * 1.25e-3;
    const text = (k: number) => `${k}:${"é€".repeat(k % 7)}`;
    const many = Array.from({ length: 3_000 }, (_, i) => 2_999 - i).map((k) => ({
      name: "idx",
      id: "many",
      payload: text(k),
      score: score(k),
    }));
    await tq.enqueueOrderedBulk([{ name: "idx", id: "before", payload: "b", score: 1e21 }]);
    await tq.enqueueOrderedBulk(many);
    await tq.enqueueOrderedBulk([{ name: "idx", id: "after", payload: "a", score: -1e-21 }]);
    const report = await tq.tick({ batch: 10, concurrency: 10 });
    expect(report).toMatchObject({ fetched: 3, succeeded: 3 });
    const byId = Object.fromEntries(runs.map((r) => [r.id, r]));
    expect(byId.before).toEqual({ id: "before", payloads: ["b"], scores: [1e21] });
    expect(byId.after).toEqual({ id: "after", payloads: ["a"], scores: [-1e-21] });
    expect(byId.many!.payloads).toEqual(Array.from({ length: 3_000 }, (_, k) => text(k)));
    expect(byId.many!.scores).toEqual(Array.from({ length: 3_000 }, (_, k) => score(k)));
  });
});
