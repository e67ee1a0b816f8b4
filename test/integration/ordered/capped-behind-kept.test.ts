// A capped id (maxPayloads) whose rest waits behind its run is due again once acked. The tick
// must remember that it holds such a run across later fetches: a fetch that took the capped id
// but not everything due (no `drained` 2), followed by a short fetch of ids with nothing behind,
// still leaves the capped id's rest to run once its run is acked, in the same tick.
import { describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("a tick holding a capped run with payloads behind it, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-capped-behind");
  const QUIET = { info() {}, warn() {}, error() {} };

  it("runs the capped id's rest after later fetches that left nothing behind", async () => {
    const runs: string[] = [];
    let singlesRan = 0;
    let releaseA: () => void = () => {};
    const singlesDone = new Promise<void>((resolve) => (releaseA = resolve));
    const tq = createTickq({
      redis: h.adapter,
      prefix: h.prefix,
      logger: QUIET,
      jobs: {},
      ordered: {
        capped: {
          maxPayloads: 1,
          perform: async (id: string, payloads: number[]) => {
            // a's first run lasts until every single id ran: they are fetched while it runs.
            if (id === "a" && payloads[0] === 0) await singlesDone;
            runs.push(`${id}:${payloads.join(",")}`);
            if (id !== "a" && ++singlesRan === 10) releaseA();
          },
        },
      },
    });
    // a sorts first (lowest due, then name): the first fetch takes it and 9 singles, and sees one more due.
    await tq.enqueueOrderedBulk([0, 1, 2].map((w) => ({ name: "capped" as const, id: "a", payload: w })));
    await tq.enqueueOrderedBulk(
      Array.from({ length: 10 }, (_, k) => ({ name: "capped" as const, id: `b${k}`, payload: k })),
    );
    const report = await tq.tick({ batch: 10, concurrency: 10 });
    expect(runs.filter((r) => r.startsWith("a:"))).toEqual(["a:0", "a:1", "a:2"]);
    expect(report).toMatchObject({ fetched: 13, succeeded: 13, more: false });
    expect(await tq.stats()).toMatchObject({ ordered: { capped: { waiting: 0, running: 0 } } });
  });
});
