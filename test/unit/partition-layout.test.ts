import { describe, expect, it } from "vitest";
import { crc16, partitionOf, partitionPrefixes, slotOf } from "../../src/partitions/layout.js";

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
});
