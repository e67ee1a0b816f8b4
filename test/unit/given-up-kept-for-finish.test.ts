// Which unanswered given-up steps' acks finish makes (src/tick/given-up.ts finishMakesTheirAcks): only
// when none of those steps ran (a batch a step that ran fetched stays in the
// tick's list, where a never-ran step arriving after the lease lapsed would ack a copy of it again).
import { describe, expect, it } from "vitest";
import { finishMakesTheirAcks } from "../../src/tick/given-up.js";

describe("finishMakesTheirAcks", () => {
  it("keeps the acks of steps that never ran when none ran", () => {
    expect(finishMakesTheirAcks([0, 0])).toBe(true);
  });

  it("keeps none when one of them ran: its batch waits in the tick's list", () => {
    expect(finishMakesTheirAcks([1, 0])).toBe(false);
    expect(finishMakesTheirAcks([0, 1])).toBe(false);
  });

  it("keeps none when nobody can tell", () => {
    expect(finishMakesTheirAcks(undefined)).toBe(false);
  });
});
