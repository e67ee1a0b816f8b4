// A completed step's record text is built as a template (src/workflows/execute.ts): it must be the text
// JSON.stringify writes, byte for byte, as run-state.lua and every older tick read it; and a result handed
// on without parsing its text back must be the value a replay parses from the stored text.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { completedHead, sameOnceParsed } from "../../src/workflows/execute.js";

const stringified = (seq: number, attempts: number, startedAt: number, endedAt: number) =>
  JSON.stringify({ status: "completed", seq, attempts, startedAt, endedAt }).slice(0, -1);

describe("a completed step's record text", () => {
  it("is JSON.stringify's text for any numbers, whole or not, finite or not", () => {
    const anyNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(-0, 1e21, Date.now()));
    fc.assert(
      fc.property(anyNumber, anyNumber, anyNumber, anyNumber, (seq, attempts, startedAt, endedAt) => {
        expect(completedHead(seq, attempts, startedAt, endedAt)).toBe(stringified(seq, attempts, startedAt, endedAt));
      }),
    );
  });

  it("parses back to the record's fields", () => {
    const text = `${completedHead(3, 1, 1_700_000_000_000, 1_700_000_000_004)},"result":{"a":1}}`;
    expect(JSON.parse(text)).toEqual({
      status: "completed",
      seq: 3,
      attempts: 1,
      startedAt: 1_700_000_000_000,
      endedAt: 1_700_000_000_004,
      result: { a: 1 },
    });
  });
});

describe("a step result handed on without parsing its text", () => {
  it("is only a value that JSON gives back as itself", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.oneof(fc.double(), fc.string(), fc.boolean()), (json, primitive) => {
        for (const value of [json, primitive]) {
          if (!sameOnceParsed(value)) continue;
          expect(Object.is(JSON.parse(JSON.stringify(value)), value)).toBe(true);
        }
      }),
    );
  });

  it("is never an object, an array, -0 or a number JSON cannot hold", () => {
    for (const value of [{}, [], -0, Number.NaN, Number.POSITIVE_INFINITY, undefined]) {
      expect(sameOnceParsed(value)).toBe(false);
    }
    for (const value of ["", "\ud800", 0, 1.5, true, null]) expect(sameOnceParsed(value)).toBe(true);
  });
});
