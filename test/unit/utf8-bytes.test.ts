// utf8Bytes counts what TextEncoder would write, without encoding: lone
// surrogates as U+FFFD (3 bytes), pairs as 4.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Bytes } from "../../src/job/size.js";

describe("utf8Bytes", () => {
  it("equals the length of TextEncoder's output for any string, lone surrogates included", () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(utf8Bytes(text)).toBe(encoder.encode(text).length);
      }),
      { numRuns: 2_000 },
    );
    for (const text of ["", "a", "é", "€", "😀", "\ud800", "\udc00", "\ud800a", "a\udc00\ud800"])
      expect(utf8Bytes(text)).toBe(encoder.encode(text).length);
  });
});
