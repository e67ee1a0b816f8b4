// Which unanswered given-up steps' acks finish makes (src/tick/given-up.ts keptForFinish): only those of
// steps that never ran, and only when none of them ran (a batch a step that ran fetched stays in the
// tick's list, where a never-ran step arriving after the lease lapsed would ack a copy of it again).
import { describe, expect, it } from "vitest";
import { keptForFinish } from "../../src/tick/given-up.js";

describe("keptForFinish", () => {
  it("keeps the acks of steps that never ran when none ran", () => {
    expect(keptForFinish([0, 0])).toEqual([true, true]);
  });

  it("keeps none when one of them ran: its batch waits in the tick's list", () => {
    expect(keptForFinish([1, 0])).toEqual([false, false]);
    expect(keptForFinish([0, 1])).toEqual([false, false]);
  });

  it("keeps none when nobody can tell", () => {
    expect(keptForFinish(undefined)).toEqual([]);
  });
});
