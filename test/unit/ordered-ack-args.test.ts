// The ordered part of a tick call as lib/ordered/ack-ids.lua reads it: successes grouped by name, in
// the order names first succeeded, their metrics entries in that same order; other outcomes after,
// in the order they came. And the fetched groups read back into one item per id.
import { describe, expect, it } from "vitest";
import { orderedArgs, readOrderedFetched, type OrderedFetched, type OrderedOutcome } from "../../src/ordered/work.js";

const item = (name: string, id: string, fence: number): OrderedFetched => ({
  name,
  id,
  fence,
  failures: 0,
  resurrections: 0,
  interruptions: 0,
  doubts: 0,
  suspect: false,
  payloads: ["1"],
  scores: [1],
});
const ok = (name: string, id: string, fence: number, ms: number): OrderedOutcome => ({
  kind: "succeeded",
  item: item(name, id, fence),
  ran: { durationMs: ms, startMs: 1_000 + ms },
});

describe("the ordered ack's arguments", () => {
  it("groups successes by name in the order names first succeeded, with their metrics in the same order", () => {
    const outcomes: OrderedOutcome[] = [
      ok("a", "x", 1, 1),
      ok("b", "y", 2, 2),
      { kind: "retry", item: item("b", "z", 3), delayMs: 1500.4, ran: { durationMs: 3, startMs: 1_003 } },
      ok("a", "w", 4, 4),
      ok("b", "v", 5, 5),
    ];
    const args = orderedArgs(["a", "b"], outcomes, { retentionSec: 60 })!;
    expect(args.succeeded).toEqual([
      {
        name: "a",
        ids: [
          { id: "x", fence: 1 },
          { id: "w", fence: 4 },
        ],
      },
      {
        name: "b",
        ids: [
          { id: "y", fence: 2 },
          { id: "v", fence: 5 },
        ],
      },
    ]);
    expect(args.others.items).toEqual([{ code: "r", name: "b", id: "z", fence: 3, extra: "1500" }]);
    expect(args.others.metrics).toEqual({
      retentionSec: 60,
      entries: [
        { runs: 1, ms: 1, startMs: 1_001 },
        { runs: 1, ms: 4, startMs: 1_004 },
        { runs: 1, ms: 2, startMs: 1_002 },
        { runs: 1, ms: 5, startMs: 1_005 },
      ],
      perItem: [{ ms: "3", startMs: "1003" }],
    });
  });

  it("sends successes that measured alike in a row as one entry counting them, in ack order", () => {
    const at = (name: string, id: string, fence: number, durationMs: number, startMs: number): OrderedOutcome => ({
      kind: "succeeded",
      item: item(name, id, fence),
      ran: { durationMs, startMs },
    });
    const outcomes: OrderedOutcome[] = [
      at("a", "x", 1, 0.2, 1_000.4),
      at("a", "y", 2, 0, 1_000),
      at("b", "z", 3, 0, 1_000),
      at("a", "w", 4, 0, 1_001),
      at("a", "v", 5, 0.4, 1_000.8),
      at("b", "u", 6, 0, 1_000),
    ];
    // a's x, y and w (0 ms at 1,000, twice; then at 1,001), then b's z and u: one entry each run.
    expect(orderedArgs(["a", "b"], outcomes, { retentionSec: 60 })!.others.metrics!.entries).toEqual([
      { runs: 2, ms: 0, startMs: 1_000 },
      { runs: 2, ms: 0, startMs: 1_001 },
      { runs: 2, ms: 0, startMs: 1_000 },
    ]);
  });

  it("sends no metrics without the settings, and nothing at all for a tick with no ordered names", () => {
    expect(orderedArgs(["a"], [ok("a", "x", 1, 1)])!.others).toEqual({ items: [] });
    expect(orderedArgs([], [ok("a", "x", 1, 1)])).toBeUndefined();
  });
});

describe("the fetched ordered groups", () => {
  const base = { failures: [], resurrections: [], suspects: [], interruptions: [], doubts: [] };

  it("gives each id its one payload and score when every id has one, fences running on from the first", () => {
    const items = readOrderedFetched([
      { name: "a", first: 7, ids: ["x", "y"], payloads: ["1", "2"], scores: ["10", "20"], counts: [], ...base },
    ]);
    expect(items.map((i) => [i.id, i.fence, i.payloads, i.scores])).toEqual([
      ["x", 7, ["1"], [10]],
      ["y", 8, ["2"], [20]],
    ]);
  });

  it("splits the payloads by count, and reads an id's counts where the lists carry them", () => {
    const items = readOrderedFetched([
      {
        name: "a",
        first: 1,
        ids: ["x", "y", "z"],
        payloads: ["1", "2", "3", "4"],
        scores: ["1", "2", "3", "4"],
        counts: [2, 1, 1],
        failures: [0, 3, 0],
        resurrections: [1, 0, 0],
        suspects: [0, 0, 1],
        interruptions: [0, 0, 2],
        doubts: [0, 1, 0],
      },
    ]);
    expect(items).toEqual([
      { ...item("a", "x", 1), payloads: ["1", "2"], scores: [1, 2], resurrections: 1 },
      { ...item("a", "y", 2), payloads: ["3"], scores: [3], failures: 3, doubts: 1 },
      { ...item("a", "z", 3), payloads: ["4"], scores: [4], suspect: true, interruptions: 2 },
    ]);
  });
});
