import { describe, expect, it } from "vitest";
import {
  countForShape,
  crc16,
  partitionOf,
  partitionPrefixes,
  partitionsPerMaster,
  slotOf,
  type SlotRange,
} from "../../src/partitions/layout.js";

/** A slot map split as redis-cli --cluster create splits it: `m` masters, equal runs of slots. */
const evenly = (m: number): SlotRange[] =>
  Array.from({ length: m }, (_, i) => ({
    first: Math.floor((i * 16384) / m),
    last: Math.floor(((i + 1) * 16384) / m) - 1,
    master: `m${i}`,
  }));

describe("partition layout", () => {
  it("computes Redis' CRC16 and key slots (values from CLUSTER KEYSLOT)", () => {
    expect(crc16("123456789")).toBe(0x31c3);
    expect(slotOf("foo")).toBe(12182);
    expect(slotOf("{user1000}.following")).toBe(slotOf("{user1000}.followers"));
    expect(slotOf("foo{}{bar}")).toBe(slotOf("foo{}{bar}"));
    expect(slotOf("foo{}{bar}")).toBe(crc16("foo{}{bar}") % 16384);
  });

  it("keeps the user's prefix with one partition", () => {
    expect(partitionPrefixes("{tq}:", 1)).toEqual(["{tq}:"]);
  });

  it("gives each of N partitions a tag in its own Nth of the slots", () => {
    for (const n of [2, 3, 6, 16]) {
      const prefixes = partitionPrefixes("tq:", n);
      expect(new Set(prefixes).size).toBe(n);
      prefixes.forEach((p, k) => {
        const slot = slotOf(`${p}queue:default`);
        expect(slot).toBeGreaterThanOrEqual(Math.floor((k * 16384) / n));
        expect(slot).toBeLessThan(Math.floor(((k + 1) * 16384) / n));
      });
    }
  });

  it("refuses a prefix with a hash tag and a bad count, naming the fix", () => {
    expect(() => partitionPrefixes("{tq}:", 3)).toThrow(/without a hash tag/);
    expect(() => partitionPrefixes("tq:", 0)).toThrow(/whole number/);
    expect(() => partitionPrefixes("tq:", 2.5)).toThrow(/whole number/);
  });

  it("spreads routing keys evenly and always to the same partition", () => {
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[partitionOf(`jid-${i}`, 3)]!++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(600);
    expect(partitionOf("order:42", 3)).toBe(partitionOf("order:42", 3));
    expect(partitionOf("anything", 1)).toBe(0);
  });

  it('"auto" picks one partition a master when the slots are split evenly, one on each master', () => {
    for (const m of [2, 3, 4, 5, 6, 9, 16]) {
      expect(countForShape(evenly(m))).toEqual({ count: m, masters: m, even: true });
      expect([...partitionsPerMaster(evenly(m), m).values()]).toEqual(Array.from({ length: m }, () => 1));
    }
    // redis-cli's own split of three masters (5461, 5462, 5461 slots).
    const cli = [
      { first: 0, last: 5460, master: "a" },
      { first: 5461, last: 10922, master: "b" },
      { first: 10923, last: 16383, master: "c" },
    ];
    expect(countForShape(cli)).toEqual({ count: 3, masters: 3, even: true });
  });

  it('"auto" takes more partitions a master when the slots are split unevenly, never fewer than two', () => {
    // A master serving two runs of slots, and a cluster resharded by halves.
    const split = [
      { first: 0, last: 4095, master: "a" },
      { first: 4096, last: 8191, master: "b" },
      { first: 8192, last: 12287, master: "a" },
      { first: 12288, last: 16383, master: "b" },
    ];
    const chosen = countForShape(split);
    expect(chosen).toMatchObject({ masters: 2, even: true });
    expect([...partitionsPerMaster(split, chosen.count).values()]).toEqual([chosen.count / 2, chosen.count / 2]);
    expect(countForShape(evenly(1))).toEqual({ count: 2, masters: 1, even: true });
    // No multiple up to eight a master lands evenly on a 90/5/5 split: the masters' count, flagged.
    const lopsided = [
      { first: 0, last: 14745, master: "a" },
      { first: 14746, last: 15564, master: "b" },
      { first: 15565, last: 16383, master: "c" },
    ];
    expect(countForShape(lopsided)).toEqual({ count: 3, masters: 3, even: false });
  });
});
