import fc from "fast-check";
import { expect, it } from "vitest";
import { readOwnShape } from "../../src/job/own-shape.js";

const str = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.constantFrom("", "__proto__", "constructor", 'a"b', "a\\b", "\ud800", "\u2028", '],"jid":"'),
);
const num = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(
    "-0",
    "0",
    "01",
    "1.",
    ".5",
    "1e3",
    "1E3",
    "1.0",
    "0.0",
    "1796034077.612",
    "9007199254740993",
    "123456789012345",
    "1234567890123456",
    "12345678901234567",
    "99999999999999.9",
    "0.000000000000001",
    "1.50",
  ),
);
const numText = num.map((n) => (typeof n === "string" ? n : JSON.stringify(n)));
const retry = fc.oneof(numText, fc.constantFrom("true", "false", "null", '"x"', "1e3", "25", "0"));
const args = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify([v])),
  fc.array(fc.jsonValue()).map((v) => JSON.stringify(v)),
  fc.array(fc.oneof(str, fc.dictionary(str, str))).map((v) => JSON.stringify(v)),
);

// Random class/jid/queue strings (quotes, backslashes, lone surrogates, U+2028, "__proto__"), random args,
// and number texts JSON.parse reads or refuses (-0, 01, 1., .5, 1e3, 16/17 digits): whatever readOwnShape
// answers, JSON.parse answers alike.
it("agrees with JSON.parse on random texts in the own shape's order", () => {
  let matched = 0;
  fc.assert(
    fc.property(str, args, str, str, retry, numText, numText, (c, a, j, q, r, ca, ea) => {
      const raw = `{"class":${JSON.stringify(c)},"args":${a},"jid":${JSON.stringify(j)},"queue":${JSON.stringify(q)},"retry":${r},"created_at":${ca},"enqueued_at":${ea}}`;
      const fast = readOwnShape(raw);
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        expect(fast).toBeUndefined();
        return;
      }
      if (fast === undefined) return;
      matched++;
      expect(Object.keys(fast)).toEqual(Object.keys(parsed as object));
      expect(fast).toStrictEqual(parsed);
      for (const k of ["created_at", "enqueued_at", "retry"] as const)
        expect(Object.is(fast[k], (parsed as Record<string, unknown>)[k]), `${k} ${raw}`).toBe(true);
    }),
    { numRuns: 20_000 },
  );
  // Enough of the random texts are in the shape for the comparison to mean something.
  expect(matched).toBeGreaterThan(50);
}, 120_000);
