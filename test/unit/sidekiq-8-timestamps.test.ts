// Sidekiq 8 writes a job's created_at / enqueued_at as integer epoch ms,
// Sidekiq 7 (and tickq) as float epoch seconds: each place that reads them
// (the metrics wait, the dashboard's times) reads both as the same instant.
import { describe, expect, it } from "vitest";
import { secondsField } from "../../src/dashboard/field.js";
import { jobTimeMs } from "../../src/job/timestamp.js";
import { runMeter } from "../../src/metrics/measure.js";
import type { JobPayload } from "../../src/job/payload.js";
import type { Outcome } from "../../src/tick/passes/ack.js";

const SECONDS = 1_764_000_000.25;
const MS = 1_764_000_000_250;

describe("a Sidekiq 8 job's millisecond times, beside Sidekiq 7's seconds", () => {
  it("are the same instant", () => {
    expect(jobTimeMs(SECONDS)).toBe(MS);
    expect(jobTimeMs(MS)).toBe(MS);
  });

  it("show as the same time on the dashboard", () => {
    expect(String(secondsField(MS))).toBe(String(secondsField(SECONDS)));
    expect(String(secondsField(MS))).toContain("2025-11-24T");
  });

  it("give the same metrics wait", () => {
    const wait = (enqueued_at: number) => {
      const payload = { class: "j", args: [], jid: "x", queue: "default", retry: true, enqueued_at } as JobPayload;
      const outcome = { kind: "succeeded", durationMs: 1 } as unknown as Outcome;
      // Started 2 s after it was enqueued, on Redis' clock (monotonic 0 + offset).
      return (runMeter(payload, 0, MS + 2_000, outcome) as { ran: { waitMs?: number } }).ran.waitMs;
    };
    expect(wait(SECONDS)).toBe(2_000);
    expect(wait(MS)).toBe(2_000);
  });
});
