// Which unanswered given-up steps' acks leave finish's (src/tick/given-up.ts leftOfFinish): those of a
// step that ran (it made them) and, when nobody can tell, every one's (the resurrector's then). A step
// that never ran keeps its acks in finish, whether or not another ran: given_up.lua fenced it, so it
// acts on nothing however late it arrives (test/integration/replay/given-up-step-after-lease.test.ts).
import { describe, expect, it } from "vitest";
import { leftOfFinish } from "../../src/tick/given-up.js";

describe("leftOfFinish", () => {
  it("keeps in finish the acks of every step that never ran", () => {
    expect(leftOfFinish([0, 0], 2)).toEqual([false, false]);
  });

  it("leaves out only the acks of a step that ran, whichever lane it was", () => {
    expect(leftOfFinish([1, 0], 2)).toEqual([true, false]);
    expect(leftOfFinish([0, 1], 2)).toEqual([false, true]);
  });

  it("leaves out every step's acks when nobody can tell", () => {
    expect(leftOfFinish(undefined, 2)).toEqual([true, true]);
  });
});
