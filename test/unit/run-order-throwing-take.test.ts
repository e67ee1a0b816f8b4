// A lane step's reply whose handling throws (src/tick/run-order.ts): the other reply, held for it,
// must still be taken, or its lane is never freed and the tick's pipeline waits for it for good.
import { expect, it } from "vitest";
import { RunOrder } from "../../src/tick/run-order.js";

it("a held reply is taken though the reply taken before it threw", () => {
  const order = new RunOrder();
  const taken: string[] = [];
  const a = order.sent();
  const b = order.sent();
  order.answered(b, 2, () => void taken.push("b"));
  try {
    order.answered(a, 1, () => {
      throw new Error("handler of a's reply failed");
    });
  } catch {
    // The pipeline swallows it (.catch(() => {})).
  }
  expect(taken).toEqual(["b"]);
});
