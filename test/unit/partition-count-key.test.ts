// What the partition count key holds, read: nothing, a count, or the mark of
// a migration from one count to another; anything else is refused. And
// which partitions of two counts share a hash tag, so jobs there can stay.
import { describe, expect, it } from "vitest";
import { partitionPrefixes } from "../../src/partitions/layout.js";
import { readStored } from "../../src/partitions/meta.js";

describe("the partition count key", () => {
  it("reads none, a count, and a migration's mark", () => {
    expect(readStored("")).toEqual({ kind: "none" });
    expect(readStored("3")).toEqual({ kind: "count", count: 3 });
    expect(readStored("3>5 a1b2")).toEqual({ kind: "moving", from: 3, to: 5, id: "a1b2", mark: "3>5 a1b2" });
  });

  it("refuses what tickq never writes there", () => {
    for (const value of ["-1", "0", "x", "3>5", "2.5"]) expect(() => readStored(value), value).toThrow(/no count/);
  });

  it("partitions 0 and 1 of 2 and of 3 share their key space; those of 3 and 5, 5 and 2 share none", () => {
    const shared = (n: number, m: number) =>
      partitionPrefixes("tq:", n).filter((p) => partitionPrefixes("tq:", m).includes(p)).length;
    expect(shared(2, 3)).toBe(2);
    expect(shared(3, 5)).toBe(0);
    expect(shared(5, 2)).toBe(0);
  });
});
