import { describe, expect, it } from "vitest";
import { HeldJobs } from "../../src/tick/held-jobs.js";

describe("a pipeline's held jobs", () => {
  it("start in fetch order, each with the moment its fetch came back, across the compaction of its arrays", () => {
    const held = new HeldJobs<number>();
    held.add([0, 1, 2], 10);
    held.add(
      Array.from({ length: 200 }, (_, i) => 3 + i),
      20,
    );
    const seen: [number | undefined, number | undefined][] = [];
    for (let i = 0; i < 150; i++) {
      seen.push([held.headSince(), held.head()]);
      expect(held.shift()).toBe(i);
    }
    expect(seen.slice(0, 4)).toEqual([
      [10, 0],
      [10, 1],
      [10, 2],
      [20, 3],
    ]);
    expect(held.length).toBe(53);
    held.add([1000], 30);
    expect(held.takeAll()).toEqual([...Array.from({ length: 53 }, (_, i) => 150 + i), 1000]);
    expect(held.length).toBe(0);
    expect(held.head()).toBeUndefined();
    expect(held.headSince()).toBeUndefined();
    expect(held.shift()).toBeUndefined();
  });

  it("take one job out of the middle with its time, and the head the same way as a shift", () => {
    const held = new HeldJobs<string>();
    held.add(["a", "b"], 1);
    held.add(["c"], 2);
    held.remove("b");
    held.remove("absent");
    expect(held.length).toBe(2);
    held.remove("a");
    expect([held.head(), held.headSince()]).toEqual(["c", 2]);
    expect(held.takeAll()).toEqual(["c"]);
  });
});
