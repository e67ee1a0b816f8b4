// Objects keyed by names a user chooses hold every name as an own property,
// Object.prototype members included, and String() still prints them; a thrown
// non-Error is described by its JSON, bounded, never by "[object Object]".
import { describe, expect, it } from "vitest";
import { nameRecord, ownValue } from "../../src/name-record.js";
import { thrownText, thrownType } from "../../src/thrown.js";

const NAMES = Object.getOwnPropertyNames(Object.prototype);

describe("nameRecord", () => {
  it("holds each Object.prototype member name as an own property, __proto__ included", () => {
    const record = nameRecord(NAMES.map((name, k) => [name, k]));
    expect(Object.keys(record)).toEqual(NAMES);
    for (const [k, name] of NAMES.entries()) expect(ownValue(record, name)).toBe(k);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(String(record)).toBe("[object Object]");
    expect(`${record}`).toBe("[object Object]");
    expect(JSON.parse(JSON.stringify(record))).toEqual(Object.fromEntries(NAMES.map((name, k) => [name, k])));
  });

  it("reads nothing inherited", () => {
    const record = nameRecord([["a", 1]]);
    expect(ownValue(record, "toString")).toBeUndefined();
    expect(ownValue(record, "__proto__")).toBeUndefined();
  });
});

describe("thrownText", () => {
  it("writes an object's JSON, a string itself, undefined as before", () => {
    expect([thrownType({ code: 42 }), thrownText({ code: 42, reason: "quota" })]).toEqual([
      "object",
      '{"code":42,"reason":"quota"}',
    ]);
    expect([thrownType("x"), thrownText("x")]).toEqual(["string", "x"]);
    expect([thrownType(undefined), thrownText(undefined)]).toEqual(["undefined", "undefined"]);
    expect([thrownType(null), thrownText(null)]).toEqual(["null", "null"]);
  });

  it("bounds what it writes: each string and the number of values", () => {
    expect(thrownText({ s: "x".repeat(50_000) }).length).toBeLessThan(10_100);
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, k) => [`k${k}`, k]));
    expect(thrownText(wide).length).toBeLessThan(30_000);
  });

  it("falls back to String() for what JSON cannot write, and never throws", () => {
    expect(thrownText(Symbol("s"))).toBe("Symbol(s)");
    const trap = () => {
      throw new Error("trap");
    };
    const hostile = new Proxy({}, { get: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, has: trap });
    expect(thrownText(hostile)).toBe("(a thrown value that cannot be printed)");
  });
});
