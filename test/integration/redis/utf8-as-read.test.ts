// A job's bytes as a client reads them, written twice: by the clients (every adapter decodes a reply as
// the WHATWG decoder does: TextDecoder, Node's Buffer) and in Lua (lib/common/utf8-as-read.lua), which the
// acks of a job that is not valid UTF-8 rely on to find it by the SHA-1 of its text as read. Random bytes,
// drawn around the edges of every sequence (overlong forms, surrogates, past U+10FFFF, cut short), must
// read the same text in both, and a valid text must come back as it is.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directRedis } from "../../helpers/redis.js";

const LIBRARY = readFileSync(new URL("../../../src/lua/lib/common/utf8-as-read.lua", import.meta.url), "utf8");
/** Each ARGV as read, and the SHA-1 of it, as Redis hashes it. */
const SCRIPT = `${LIBRARY}
local out = {}
for k = 1, #ARGV do
  local text = utf8_as_read(ARGV[k])
  out[#out + 1] = text
  out[#out + 1] = redis.sha1hex(text)
end
return out`;

/** Bytes that sit at the edges of the decoder's rules, and some plain ones. */
const EDGES = [
  0x00, 0x22, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee,
  0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8, 0xfc, 0xfe, 0xff,
];
const byte = fc.oneof(fc.constantFrom(...EDGES), fc.integer({ min: 0, max: 255 }));
const bytes = fc.array(byte, { maxLength: 24 }).map((list) => Buffer.from(list));
/** Valid UTF-8 of every length, with the bytes above between. */
const mixed = fc
  .array(
    fc.oneof(
      bytes,
      fc.string({ unit: "grapheme", maxLength: 6 }).map((s) => Buffer.from(s, "utf8")),
    ),
    {
      maxLength: 6,
    },
  )
  .map((parts) => Buffer.concat(parts));

const sha1 = (text: string) => createHash("sha1").update(text, "utf8").digest("hex");

describe("lib/common/utf8-as-read.lua", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = directRedis();
  });
  afterAll(() => redis.disconnect());

  const readInLua = async (inputs: Buffer[]) => (await redis.callBuffer("EVAL", SCRIPT, 0, ...inputs)) as Buffer[];

  it("reads the text every client reads, U+FFFD for U+FFFD, and hashes it as the client does", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(bytes, mixed), { minLength: 1, maxLength: 40 }), async (inputs) => {
        const read = await readInLua(inputs);
        inputs.forEach((input, k) => {
          const asClients = new TextDecoder().decode(input);
          expect(input.toString("utf8")).toBe(asClients); // ioredis' decoding is the same
          expect(read[2 * k]!.toString("utf8"), input.toString("hex")).toBe(asClients);
          expect(read[2 * k + 1]!.toString(), input.toString("hex")).toBe(sha1(asClients));
        });
      }),
      { numRuns: 300 },
    );
  });

  it("leaves valid UTF-8, a real U+FFFD included, byte for byte", async () => {
    const valid = ['{"args":["é€😀"]}', "\uFFFD", "plain", "", "\u0080\u07ff\u0800\uffff\u{10000}\u{10ffff}"];
    const read = await readInLua(valid.map((s) => Buffer.from(s, "utf8")));
    expect(read.filter((_, k) => k % 2 === 0).map((b) => b.toString("utf8"))).toEqual(valid);
  });

  it("replaces each maximal subpart of an ill-formed sequence by one U+FFFD", async () => {
    const cases: [string, string][] = [
      ["ff", "\uFFFD"],
      ["80", "\uFFFD"],
      ["c080", "\uFFFD\uFFFD"], // overlong: C0 is never a lead
      ["e282", "\uFFFD"], // cut short at the end
      ["e28222", '\uFFFD"'], // cut short before a quote, which is read again
      ["eda080", "\uFFFD\uFFFD\uFFFD"], // a surrogate
      ["f09f98", "\uFFFD"],
      ["f4908080", "\uFFFD\uFFFD\uFFFD\uFFFD"], // past U+10FFFF
      ["61ff62c3a9", "a\uFFFDbé"],
    ];
    const read = await readInLua(cases.map(([hex]) => Buffer.from(hex, "hex")));
    expect(read.filter((_, k) => k % 2 === 0).map((b) => b.toString("utf8"))).toEqual(cases.map(([, text]) => text));
  });
});
