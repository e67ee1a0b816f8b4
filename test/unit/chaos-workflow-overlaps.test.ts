// The workflow chaos phase's overlap judge: step intervals of one run from
// two executions (fences) that intersect in time are an overlap; intervals
// of one execution, or of two that follow each other, are not. The phase's
// must-be-0 row rests on it, so it must be able to fail.
import { describe, expect, it } from "vitest";
import { overlapsOf } from "../../bench/chaos/workflow-phase.js";

describe("the workflow phase's overlap judge", () => {
  it("flags intervals of two fences that intersect, and only those", () => {
    expect(
      overlapsOf("r", [
        [1, 0, 10],
        [1, 5, 15],
        [2, 20, 30],
      ]),
    ).toEqual([]);
    expect(
      overlapsOf("r", [
        [1, 0, 10],
        [2, 9, 12],
        [3, 12, 14],
      ]),
    ).toEqual(["r: fences 1 and 2"]);
  });
});
