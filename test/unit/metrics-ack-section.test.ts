// What a tick's ack sends for metrics (src/metrics/section.ts through the
// protocol's metrics trailer): " m<groups> <retention>" after the others
// count (and after the results header when there is one), the successes
// summed per queue and job name, then each other outcome's name, run time and
// wait — after the results entries. These are the bytes main sent before the
// trailer was declared, which lib/metrics/record-runs.lua reads. (The two
// successes go joined in one value, "j2" then "a\x1eb": the others' count is
// ARGV's fifth value after the prefix, index 4 here.)
import { describe, expect, it } from "vitest";
import { metricsSettings } from "../../src/metrics/settings.js";
import { resultSettings } from "../../src/results/settings.js";
import type { Outcome } from "../../src/tick/passes/ack.js";
import type { FetchedJob } from "../../src/tick/passes/fetch.js";
import { ackArgv } from "../helpers/begin-args.js";

const fetched = (jid: string): FetchedJob =>
  ({
    raw: `{"class":"x","args":[],"jid":"${jid}","queue":"default"}`,
    queue: "default",
    resurrections: 0,
    interruptions: 0,
  }) as FetchedJob;
const ran = (durationMs: number, waitMs?: number) => ({ name: "x", durationMs, waitMs });
// a and b succeeded (12 ms and 300 ms, waits 40 and 5 ms), c failed and retries (7 ms, no wait known).
const outcomes: Outcome[] = [
  { kind: "succeeded", job: fetched("a"), ran: ran(12, 40), durationMs: 12 },
  { kind: "succeeded", job: fetched("b"), ran: ran(300.4, 5), durationMs: 300 },
  { kind: "retry", job: fetched("c"), updated: "c2", delaySec: 30, ran: ran(7) },
];
const metrics = metricsSettings({ retentionMs: 3_600_000 });
// Buckets from 1: 12 ms → 3, 300 ms → 7; waits 5 ms → 1, 40 ms → 4.
const successes = ["x", "default", 2, 312, 45, "3 1 7 1", "1 1 4 1"];

describe("the metrics trailer of an ack", () => {
  it("follows the outcomes: one group for the successes, then name, run time and wait ('' unknown) per other", () => {
    const args = ackArgv(outcomes, undefined, undefined, metrics).map(String);
    expect(args.slice(5)).toEqual(
      ["1 m1 3600", "r", "default", fetched("c").raw, "c2", 30, ...successes, "x", "7", ""].map(String),
    );
  });

  it("goes after the results trailer, in the header and in the entries", () => {
    const keep = resultSettings({ count: 10, ageMs: 60_000 }, undefined);
    const args = ackArgv(outcomes, keep, undefined, metrics).map(String);
    expect(args[5]).toBe("1 2 10 60 3600000 m1 3600");
    // the others (5), the two results entries (5 each), then the metrics entries
    expect(args.slice(6 + 5 + 10)).toEqual([...successes, "x", "7", ""].map(String));
    expect(args.slice(6 + 5, 6 + 5 + 10).filter((_, k) => k % 5 === 0)).toEqual(["1", "2"]);
  });

  it("is absent with metrics off, so the ack is the one sent without metrics", () => {
    expect(ackArgv(outcomes, undefined, undefined, undefined)).toEqual(ackArgv(outcomes));
    expect(ackArgv(outcomes)[5]).toBe(1);
  });
});
