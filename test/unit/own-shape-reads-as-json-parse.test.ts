import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeJob } from "../../src/job/codec.js";
import { readOwnShape } from "../../src/job/own-shape.js";

const own = (args: string, tail = ',"jid":"13b24008f1058fb8a205fb01","queue":"default","retry":true') =>
  `{"class":"noop","args":${args}${tail},"created_at":1796034077.612,"enqueued_at":1796034077.613}`;

/** readOwnShape answers nothing, or exactly what JSON.parse makes of the text: keys in order, values alike. */
function agrees(raw: string): void {
  const fast = readOwnShape(raw);
  if (fast === undefined) return;
  const parsed = JSON.parse(raw) as Record<string, unknown>;
  expect(Object.keys(fast)).toEqual(Object.keys(parsed));
  expect(fast).toStrictEqual(parsed);
  for (const key of ["created_at", "enqueued_at", "retry"]) expect(Object.is(fast[key], parsed[key])).toBe(true);
}

describe("a job in tickq's own shape is read as JSON.parse reads it", () => {
  it("reads the shape tickq's enqueue writes", () => {
    const raw = own('[1,"two",{"three":[3]}]');
    expect(readOwnShape(raw)).toBeDefined();
    agrees(raw);
  });

  it("reads retry as a count or false, and times with or without a fraction", () => {
    for (const retry of ["false", "0", "25"]) {
      const raw = own("[]", `,"jid":"j","queue":"q","retry":${retry}`);
      expect(readOwnShape(raw)?.retry).toEqual(JSON.parse(retry));
      agrees(raw);
    }
    const whole = '{"class":"a","args":[],"jid":"j","queue":"q","retry":true,"created_at":1796034077,"enqueued_at":0}';
    expect(readOwnShape(whole)).toBeDefined();
    agrees(whole);
  });

  it("reads times as JSON.parse rounds them", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_999_999_999 }), fc.integer({ min: 0, max: 99_999 }), (s, frac) => {
        const t = `${s}.${String(frac).padStart(5, "0")}`;
        const raw = `{"class":"a","args":[],"jid":"j","queue":"q","retry":true,"created_at":${t},"enqueued_at":${t}}`;
        expect(readOwnShape(raw)).toBeDefined();
        agrees(raw);
      }),
    );
  });

  it("leaves to JSON.parse what it does not read: escapes, control characters, other fields, long numbers", () => {
    for (const raw of [
      own("[]", ',"jid":"a\\"b","queue":"default","retry":true'),
      own("[]", ',"jid":"a\tb","queue":"default","retry":true'),
      own("[]", ',"jid":"j","queue":"default","retry":true,"retry_count":0'),
      own("[]", ',"jid":"j","queue":"default","retry":-1'),
      own("[1] "),
      own(" [1]"),
      '{"class":"a","args":[],"jid":"j","queue":"q","retry":true,"created_at":1.7e9,"enqueued_at":1}',
      '{"class":"a","args":[],"jid":"j","queue":"q","retry":true,"created_at":1796034077.6123456,"enqueued_at":1}',
      '{"class":"a","args":[],"jid":"j","queue":"q","retry":true,"created_at":01,"enqueued_at":1}',
      '{"class":"","args":[],"jid":"j","queue":"q","retry":true,"created_at":1,"enqueued_at":1}',
      `${own("[]")} `,
    ])
      expect(readOwnShape(raw), raw).toBeUndefined();
  });

  it("finds args whole when they hold the text that follows them (an object with a jid key)", () => {
    const raw = own('[{"a":1,"jid":"x","queue":"y"},"],\\"jid\\":\\""]');
    expect(readOwnShape(raw)?.args).toEqual(JSON.parse(raw).args);
    agrees(raw);
  });

  it("never reads a text JSON.parse refuses, nor reads one otherwise than it does", () => {
    const base = own('[1,{"k":"v"},[2,3],"s"]');
    const chars = fc.constantFrom(...'{}[]",:\\ 0123456789.eE-tfnux\t\n'.split(""));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(base.length), fc.nat(3), fc.string({ unit: chars, maxLength: 3 })), {
          maxLength: 4,
        }),
        (edits) => {
          let raw = base;
          for (const [at, cut, insert] of edits) raw = raw.slice(0, at) + insert + raw.slice(at + cut);
          let valid = true;
          try {
            JSON.parse(raw);
          } catch {
            valid = false;
          }
          if (!valid) expect(readOwnShape(raw)).toBeUndefined();
          else agrees(raw);
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it("decodes a job of its shape as before: known name, unknown name, empty args", () => {
    const jobs = { noop: () => {} };
    expect(decodeJob(own("[]"), jobs)).toEqual({ ok: true, payload: JSON.parse(own("[]")) });
    const other = own("[]").replace('"noop"', '"gone"');
    const decoded = decodeJob(other, jobs);
    expect(decoded).toMatchObject({ ok: false, errorClass: "TickqUnknownJob", payload: JSON.parse(other) });
  });
});
