// The client resends a call whose reply was lost after Redis ran it (ioredis
// after a reconnect, @upstash/redis's retries). For ordered ids: the resent
// begin or step answers the same ids, fences and payloads (re-read, not
// kept), the resent finish settles nothing twice, a resent enqueue adds
// nothing twice. Every id runs exactly once with all its payloads.
import { afterEach, describe, expect, it } from "vitest";
import { createTickq, type OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { openDropping, type DroppingAdapter } from "../../helpers/dropping.js";
import { useHarness } from "../../helpers/harness.js";

const QUIET = { info() {}, warn() {}, error() {} };

describe.each(adapterCases)("a dropped reply of an ordered tick, resent, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-dropped");
  let dropping: DroppingAdapter | undefined;
  afterEach(async () => dropping?.close());

  for (const when of ["begin", "step", "finish", "enqueue"] as const) {
    it(`of ${when}: every id runs once, with its payloads, each run its own fence`, async () => {
      dropping = await openDropping(adapterCase.name, h.prefix);
      const runs = new Map<string, { payloads: unknown[]; fences: number[] }>();
      let dropped: Promise<boolean> = Promise.resolve(true);
      const perform = (id: string, payloads: unknown[], ctx: OrderedContext) => {
        const run = runs.get(id) ?? { payloads: [], fences: [] };
        run.payloads.push(...payloads);
        run.fences.push(ctx.fence);
        runs.set(id, run);
        if ((when === "step" && id === "id-0") || (when === "finish" && id === "id-39")) dropped = dropping!.dropNext();
      };
      const tq = createTickq({
        redis: dropping.adapter,
        prefix: h.prefix,
        jobs: {},
        ordered: { idx: { perform } },
        logger: QUIET,
      });
      if (when === "enqueue") dropped = dropping.dropNext();
      await tq.enqueueOrderedBulk(
        Array.from({ length: 40 }, (_, i) =>
          [1, 2].map((v) => ({ name: "idx" as const, id: `id-${i}`, payload: v, score: v })),
        ).flat(),
      );
      if (when === "begin") dropped = dropping.dropNext();
      const report = await tq.tick({ batch: 10, concurrency: 1 });
      expect(await dropped).toBe(true);
      expect(report).toMatchObject({ succeeded: 40, fetched: 40, leaseLost: false });
      expect(runs.size).toBe(40);
      for (const [id, run] of runs) expect(run, id).toEqual({ payloads: [1, 2], fences: [expect.any(Number)] });
      const fences = [...runs.values()].map((r) => r.fences[0]!);
      expect(new Set(fences).size).toBe(40);
      expect(await tq.stats()).toMatchObject({
        processed: 40,
        inflight: 0,
        ordered: { idx: { waiting: 0, running: 0, payloads: 0, dead: 0 } },
      });
    });
  }
});
