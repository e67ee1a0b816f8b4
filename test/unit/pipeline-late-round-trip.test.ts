// The lead a fetch needs (prefetch.ts): over HTTP (`late`) it covers the
// slowest round trip lately, decaying step by step, so after a late request
// the next fetches go with more jobs held; the mean's lead is unchanged.
// The clock is the test's: no timing.
import { describe, expect, it } from "vitest";
import { newPrefetch } from "../../src/tick/prefetch.js";

/** A prefetch whose slots started one job a millisecond for a second. */
function running() {
  let t = 0;
  const prefetch = newPrefetch(50, () => t);
  for (; t < 1_000; t++) prefetch.started();
  return prefetch;
}

describe("the lead over late round trips", () => {
  it("with even round trips, the late lead is the mean's", () => {
    const prefetch = running();
    for (let i = 0; i < 20; i++) prefetch.stepTook(20);
    expect(prefetch.lead(true)).toBe(prefetch.lead());
    expect(prefetch.lead()).toBe(30);
  });

  it("after one late round trip, the late lead covers it and the mean's barely moves", () => {
    const prefetch = running();
    for (let i = 0; i < 20; i++) prefetch.stepTook(20);
    prefetch.stepTook(80);
    expect(prefetch.lead(true)).toBe(120);
    expect(prefetch.lead()).toBeLessThan(60);
  });

  it("the late round trip's weight decays with the steps after it, down to the mean's", () => {
    const prefetch = running();
    for (let i = 0; i < 20; i++) prefetch.stepTook(20);
    prefetch.stepTook(80);
    const leads = [];
    for (let i = 0; i < 30; i++) {
      prefetch.stepTook(20);
      leads.push(prefetch.lead(true));
    }
    for (let i = 1; i < leads.length; i++) expect(leads[i]!).toBeLessThanOrEqual(leads[i - 1]!);
    expect(leads[0]!).toBeGreaterThan(100);
    expect(leads.at(-1)).toBe(prefetch.lead());
  });
});
