// begin and step answer an ordered group's ids, payloads and scores joined in one value each
// (lib/common/joined.lua, lib/ordered/fetch-ids.lua ordered_reply.joined): past 8 KiB in chunks,
// and as a list again when a stored payload holds the separator. Every form reaches each handler
// with its own payloads and scores, as stored.
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

interface Run {
  id: string;
  payloads: unknown[];
  scores: number[];
}

describe.each(adapterCases)("ordered groups answered joined over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-joined");
  const recorder = (runs: Run[]) => ({
    perform: (id: string, payloads: unknown[], ctx: OrderedContext) =>
      void runs.push({ id, payloads, scores: ctx.scores }),
  });
  const byId = (runs: Run[]) => [...runs].sort((a, b) => Number(a.id.slice(3)) - Number(b.id.slice(3)));

  it("100 ids with payloads of 300 bytes (30 KB, answered in chunks): each runs with its own payload and score", async () => {
    const runs: Run[] = [];
    const tq = h.make({}, { ordered: { idx: recorder(runs) } });
    const text = (i: number) => `${i}:${"x".repeat(300)}`;
    await tq.enqueueOrderedBulk(
      Array.from({ length: 100 }, (_, i) => ({ name: "idx", id: `id-${i}`, payload: { t: text(i) }, score: i + 0.5 })),
    );
    const report = await tq.tick({ batch: 100, concurrency: 100 });
    expect(report).toMatchObject({ fetched: 100, succeeded: 100 });
    expect(byId(runs)).toEqual(
      Array.from({ length: 100 }, (_, i) => ({ id: `id-${i}`, payloads: [{ t: text(i) }], scores: [i + 0.5] })),
    );
  });

  it("a stored payload that holds the separator raw (malformed JSON): the other id runs with its own payloads, that id goes dead", async () => {
    const runs: Run[] = [];
    const tq = h.make({}, { ordered: { idx: recorder(runs) } });
    await tq.enqueueOrderedBulk([
      { name: "idx", id: "id-0", payload: "a", score: 1 },
      { name: "idx", id: "id-0", payload: "b", score: 2 },
      { name: "idx", id: "id-1", payload: "c", score: 3 },
    ]);
    // Written by something other than tickq: JSON text never holds the separator raw.
    await h.redis.zadd(`${h.prefix}o:idx:p:id-1`, 4, '"d\u001ee"');
    await tq.tick({ batch: 10, concurrency: 10 });
    expect(runs).toEqual([{ id: "id-0", payloads: ["a", "b"], scores: [1, 2] }]);
    expect((await tq.stats()).ordered.idx).toMatchObject({ waiting: 0, running: 0, dead: 1 });
  });
});
