// Default unique keys come from canonical JSON of the args: args that differ
// must give keys that differ, an own "__proto__" key (which JSON.parse makes,
// and so does any HTTP enqueue) included; keys of ordinary args stay as they
// were, since they are stored in Redis.
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/flow/canonical.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const withProto = () => JSON.parse('{"__proto__":{"admin":true},"x":1}') as unknown;

describe("canonical JSON of job args", () => {
  it("keeps an own __proto__ key, so it differs from the same args without it", () => {
    expect(canonicalJson([withProto()])).toBe('[{"__proto__":{"admin":true},"x":1}]');
    expect(canonicalJson([withProto()])).not.toBe(canonicalJson([{ x: 1 }]));
    expect(canonicalJson(JSON.parse('{"z":{"__proto__":{"b":2,"a":1}},"a":0}'))).toBe(
      '{"a":0,"z":{"__proto__":{"a":1,"b":2}}}',
    );
  });

  it("gives ordinary args the same output as before: keys sorted at every depth", () => {
    expect(canonicalJson([{ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } }, "s", 2])).toBe(
      '[{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1},"s",2]',
    );
    expect(canonicalJson([{ 10: "ten", 9: "nine", b: true, a: "x" }])).toBe(
      '[{"9":"nine","10":"ten","a":"x","b":true}]',
    );
    expect(canonicalJson([])).toBe("[]");
  });
});

describe.each(adapterCases)("default unique keys over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "unique-proto");

  it("until-executed: args with an own __proto__ key are not a duplicate of the args without it", async () => {
    const tq = h.make({ sync: { perform: () => {} } });
    const plain = await tq.enqueue("sync", [{ x: 1 }] as never, { unique: "until-executed" });
    const proto = await tq.enqueue("sync", [withProto()] as never, { unique: "until-executed" });
    expect(proto).not.toBe(plain);
    expect(await tq.enqueue("sync", [withProto()] as never, { unique: "until-executed" })).toBe(proto);
  });
});
