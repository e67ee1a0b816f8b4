// partitions: "auto" refuses a prefix with a hash tag, and names the prefix to use: the same
// text without the braces, so its keys keep their names.
import { expect, it } from "vitest";
import { TickqError } from "../../src/errors.js";
import { checkAutoPrefix } from "../../src/partitions/auto.js";

it("refuses a tagged prefix with auto and suggests the prefix without its braces", () => {
  const refusal = (() => {
    try {
      checkAutoPrefix("{ux}:");
    } catch (error) {
      return error;
    }
  })();
  expect(refusal).toBeInstanceOf(TickqError);
  expect((refusal as TickqError).message).toContain('prefix: "ux:"');
  expect(() => checkAutoPrefix("app:{jobs}:")).toThrow(/prefix: "app:jobs:"/);
  expect(() => checkAutoPrefix("ux:")).not.toThrow();
});
