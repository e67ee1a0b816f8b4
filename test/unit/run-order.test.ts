// When the pipeline takes a lane step's reply (src/tick/run-order.ts): in the
// order Redis ran the steps, by the number each reply carries; with no
// number (older Lua), in the order they were sent.
import { describe, expect, it } from "vitest";
import { RunOrder } from "../../src/tick/run-order.js";

function taker() {
  const taken: string[] = [];
  return { taken, take: (name: string) => () => void taken.push(name) };
}

describe("lane steps' replies taken in run order", () => {
  it("takes the reply numbered next at once, though the step sent before it has not answered", () => {
    const order = new RunOrder();
    const { taken, take } = taker();
    const a = order.sent();
    const b = order.sent();
    order.answered(b, 1, take("b"));
    expect(taken).toEqual(["b"]);
    order.answered(a, 2, take("a"));
    expect(taken).toEqual(["b", "a"]);
  });

  it("holds a reply run after the other step until that one answers, then takes the lower number first", () => {
    const order = new RunOrder();
    const { taken, take } = taker();
    const a = order.sent();
    const b = order.sent();
    order.answered(a, 2, take("a"));
    expect(taken).toEqual([]);
    order.answered(b, 1, take("b"));
    expect(taken).toEqual(["b", "a"]);
  });

  it("takes a held reply once the other step failed for good", () => {
    const order = new RunOrder();
    const { taken, take } = taker();
    const a = order.sent();
    const b = order.sent();
    order.answered(b, 2, take("b"));
    expect(taken).toEqual([]);
    order.failed(a);
    expect(taken).toEqual(["b"]);
  });

  it("takes a reply at once when no other step is in flight, whatever its number", () => {
    const order = new RunOrder();
    const { taken, take } = taker();
    order.answered(order.sent(), 5, take("a"));
    const b = order.sent();
    const c = order.sent();
    order.answered(c, 6, take("c"));
    order.answered(b, 7, take("b"));
    expect(taken).toEqual(["a", "c", "b"]);
  });

  it("with no numbers (Lua before the count): in send order", () => {
    const order = new RunOrder();
    const { taken, take } = taker();
    const a = order.sent();
    const b = order.sent();
    order.answered(b, undefined, take("b"));
    expect(taken).toEqual([]);
    order.answered(a, undefined, take("a"));
    expect(taken).toEqual(["a", "b"]);
    const c = order.sent();
    order.answered(c, undefined, take("c"));
    expect(taken).toEqual(["a", "b", "c"]);
  });

  it("a step sent first answering with no number (it fetched nothing) goes before the other's held reply", () => {
    const order = new RunOrder();
    const { taken, take } = taker();
    const a = order.sent();
    const b = order.sent();
    order.answered(b, 3, take("b"));
    order.answered(a, undefined, take("a"));
    expect(taken).toEqual(["a", "b"]);
  });
});
