// Two ticks (two clients) drain the same capped ordered name at once, each stepping a batch at a
// time with its acks (a step that takes those ids again): an id never runs in both at once, and
// each id's payloads run once each, in score order, across both ticks' runs.
import { describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("two ticks draining one capped name, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-capped-concurrent");
  const QUIET = { info() {}, warn() {}, error() {} };

  it("never runs an id in both, and runs each id's payloads once, in order", async () => {
    const live = new Set<string>();
    const overlaps: string[] = [];
    const runs = new Map<string, number[]>();
    const capped = {
      maxPayloads: 2,
      perform: async (id: string, payloads: number[]) => {
        if (live.has(id)) overlaps.push(id);
        live.add(id);
        // Turns of the event loop, so the other tick's steps interleave with this run.
        for (let k = 0; k < 3; k++) await new Promise((resolve) => setImmediate(resolve));
        runs.set(id, [...(runs.get(id) ?? []), ...payloads]);
        live.delete(id);
      },
    };
    const make = () =>
      createTickq({ redis: h.adapter, prefix: h.prefix, logger: QUIET, jobs: {}, ordered: { capped } });
    const [one, two] = [make(), make()];
    const ids = Array.from({ length: 12 }, (_, k) => `id-${k}`);
    await one.enqueueOrderedBulk(
      Array.from({ length: 9 }, (_, w) =>
        ids.map((id) => ({ name: "capped" as const, id, payload: w, score: w })),
      ).flat(),
    );
    const [a, b] = await Promise.all([one.tick({ batch: 5, concurrency: 5 }), two.tick({ batch: 5, concurrency: 5 })]);
    expect(overlaps).toEqual([]);
    expect(a.succeeded + b.succeeded).toBe(12 * 5); // 9 payloads an id, 2 a run: 5 runs an id
    for (const id of ids) expect(runs.get(id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await one.stats()).toMatchObject({ ordered: { capped: { waiting: 0, running: 0 } } });
  });

  // A failed run with payloads behind it is due again at once (backoff 0) and the tick takes it again
  // with the acks: a poison capped id spends its retries within one tick, bounded by them (and by the
  // budget), not one attempt a tick. Its last payload, with nothing behind it, ends the tick.
  it("a capped id that always fails with no backoff spends the retries of each payload with one behind it in one tick", async () => {
    let attempts = 0;
    const tq = createTickq({
      redis: h.adapter,
      prefix: h.prefix,
      logger: QUIET,
      jobs: {},
      ordered: {
        capped: {
          maxPayloads: 1,
          retry: 5,
          backoffMs: () => 0,
          perform: () => {
            attempts++;
            throw new Error("always");
          },
        },
      },
    });
    await tq.enqueueOrderedBulk([0, 1, 2].map((w) => ({ name: "capped" as const, id: "p", payload: w })));
    const report = await tq.tick({ batch: 5, concurrency: 5 });
    // retry 5: payloads 0 and 1 run 6 times each and go dead; payload 2 fails once and waits.
    expect({ attempts, failed: report.failed }).toEqual({ attempts: 13, failed: 13 });
    expect((await tq.stats()).ordered.capped).toMatchObject({ dead: 2, waiting: 1, running: 0 });
  });
});
