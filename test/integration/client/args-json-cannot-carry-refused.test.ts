// Without a schema, args that JSON cannot carry faithfully are refused at
// enqueue instead of reaching the handler changed (NaN as null, a Date as a
// string, a Map as {}), with a BAD_ARGS naming the path; ordered payloads go
// through the same checker. An object property set to undefined is allowed:
// it is left out, and the handler reads it back as undefined.
import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { snapshot } from "../../helpers/snapshot.js";

const cyclic: Record<string, unknown> = { name: "loop" };
cyclic.self = cyclic;
class Point {
  constructor(readonly x: number) {}
}

const REFUSED: [string, unknown[], RegExp][] = [
  ["NaN", [1, Number.NaN], /^args\[1\]: NaN \(JSON has no NaN; it would arrive as null\)$/],
  ["Infinity inside an object", [{ ratio: Infinity }], /^args\[0\]\.ratio: Infinity/],
  ["undefined in the array", ["a", undefined], /^args\[1\]: undefined \(it would arrive as null; use null\)$/],
  ["a hole in the array", [1, , 3], /^args\[1\]: undefined/], // a sparse array: JSON writes null there
  ["a function", [{ onDone: () => {} }], /^args\[0\]\.onDone: a function/],
  ["a symbol", [Symbol("s")], /^args\[0\]: a symbol/],
  ["a BigInt", [{ "user id": 10n }], /^args\[0\]\["user id"\]: a BigInt/],
  ["a cycle", [cyclic], /^args\[0\]\.self: a cycle/],
  ["a Date", [new Date(0)], /^args\[0\]: a Date .*toISOString/],
  ["a Map", [new Map([["a", 1]])], /^args\[0\]: a Map/],
  ["a class instance", [[new Point(1)]], /^args\[0\]\[0\]: a Point/],
];

describe.each(adapterCases)("args JSON cannot carry, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "args-json");

  it.each(REFUSED)("%s: BAD_ARGS naming the path, nothing written", async (_label, args, where) => {
    const ran: unknown[] = [];
    const tq = h.make({ job: (a: unknown[]) => void ran.push(a) });
    const before = await snapshot(h.redis, h.prefix);
    const error = await tq
      .enqueueBulk([
        { name: "job", args: ["fine"] },
        { name: "job", args },
      ])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TickqError);
    expect((error as TickqError).code).toBe("BAD_ARGS");
    const message = (error as TickqError).message;
    expect(message.startsWith('Job "job": ')).toBe(true);
    expect(message.slice('Job "job": '.length)).toMatch(where);
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });

  it("args JSON carries as they are reach the handler equal, an undefined property left out", async () => {
    const ran: unknown[] = [];
    const tq = h.make({ job: (a: unknown[]) => void ran.push(a) });
    const args = [
      null,
      0,
      -1.5,
      "ü\u2028",
      true,
      [],
      {},
      { nested: [{ deep: [1, { x: null }] }] },
      Object.assign(Object.create(null), { bare: 1 }),
    ];
    await tq.enqueue("job", args);
    await tq.enqueue("job", [{ name: "a", nickname: undefined }]);
    expect(await tq.tick()).toMatchObject({ succeeded: 2 });
    expect(ran).toEqual([[...args.slice(0, -1), { bare: 1 }], [{ name: "a" }]]);
  });

  it("ordered payloads are refused by the same checker", async () => {
    const tq = h.make({}, { ordered: { idx: { perform: () => {} } } });
    const call = tq.enqueueOrdered("idx", { id: "a", payload: { at: new Date(0), n: Number.NaN } });
    await expect(call).rejects.toMatchObject({ code: "BAD_ARGS" });
    await expect(call).rejects.toThrow(/^Ordered job "idx": payload must be a JSON value; payload\.at: a Date/);
  });
});
