// Bad flow input is a TickqError (400 over HTTP), and nothing is written:
// not the bad job, not the good jobs of the same call.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { TickqError, type BulkJob, type JobRegistry } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { snapshot } from "../../helpers/snapshot.js";

const perform = () => {};
const jobs: JobRegistry = {
  ok: { perform },
  throws: {
    perform,
    uniqueKey: () => {
      throw new Error("no account");
    },
  },
  number: { perform, uniqueKey: (() => 42) as unknown as () => string },
  limit0: { perform, concurrency: { key: () => "k", limit: 0 } },
  fraction: { perform, rateLimit: { key: () => "k", limit: 1.5, periodMs: 1_000 } },
  period0: { perform, rateLimit: { key: () => "k", limit: 1, periodMs: 0 } },
  keyless: { perform, concurrency: { key: "k" as unknown as () => string, limit: 1 } },
  empty: { perform, rateLimit: { key: () => "", limit: 1, periodMs: 1_000 } },
};

const cases: [string, BulkJob, RegExp][] = [
  ["a uniqueKey that throws", { name: "throws", args: [], unique: "while-executing" }, /uniqueKey threw: no account/],
  [
    "a uniqueKey that returns a number",
    { name: "number", args: [], unique: "coalesce" },
    /uniqueKey must return a non-empty string, got number/,
  ],
  ["a concurrency limit below 1", { name: "limit0", args: [] }, /concurrency.limit must be a whole number ≥ 1, got 0/],
  ["a fractional rate limit", { name: "fraction", args: [] }, /rateLimit.limit must be a whole number ≥ 1, got 1.5/],
  ["a zero period", { name: "period0", args: [] }, /rateLimit.periodMs must be a whole number ≥ 1, got 0/],
  ["a key that is no function", { name: "keyless", args: [] }, /concurrency.key must be a function/],
  ["an empty key", { name: "empty", args: [] }, /rateLimit.key must return a non-empty string, got ""/],
  [
    "an unknown unique mode",
    { name: "ok", args: [], unique: "always" as "coalesce" },
    /unknown unique mode "always"; modes are while-executing, until-executed, coalesce/,
  ],
];

describe.each(adapterCases)("bad flow input over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-bad");

  it.each(cases)("%s: a TickqError, and nothing of the call is written", async (_what, job, message) => {
    const tq = h.make(jobs);
    const error = await tq.enqueueBulk([{ name: "ok", args: [] }, job] as never[]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TickqError);
    expect((error as TickqError).code).toBe("BAD_ARGS");
    expect((error as TickqError).message).toMatch(message);
    expect(await snapshot(h.redis, h.prefix)).toEqual({});
  });
});

describe("POST /jobs with flow options", () => {
  const h = useHarness(adapterCases[0]!, "flow-route");
  const post = (body: unknown) => ({
    method: "POST",
    body: JSON.stringify(body),
    headers: { Authorization: "Bearer s-secret-for-tests", "content-type": "application/json" },
  });

  it("takes `unique`; a bad mode or a throwing key is a 400 and writes nothing; /stats shows flow per job name", async () => {
    const app = createApp({
      tickq: h.make({ ...jobs, sync: { perform, uniqueKey: ([id]: [string]) => id } }),
      secrets: ["s-secret-for-tests"],
    });
    const first = await app.request("/jobs", post({ name: "sync", args: ["a"], unique: "until-executed" }));
    expect(first.status).toBe(201);
    const { jid } = await first.json();
    const again = await app.request("/jobs", post([{ name: "sync", args: ["a"], unique: "until-executed" }]));
    expect((await again.json()).jids).toEqual([jid]);
    const before = await snapshot(h.redis, h.prefix);
    const bad = await app.request("/jobs", post({ name: "sync", args: ["b"], unique: "sometimes" }));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatch(/unique must be while-executing, until-executed or coalesce/);
    const throwing = await app.request(
      "/jobs",
      post([
        { name: "sync", args: ["c"] },
        { name: "throws", args: [], unique: "coalesce" },
      ]),
    );
    expect(throwing.status).toBe(400);
    expect((await throwing.json()).error).toMatch(/uniqueKey threw/);
    // only the refused calls' replay tokens were never written either: the state is as it was
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    const stats = await app.request("/stats", { headers: { Authorization: "Bearer s-secret-for-tests" } });
    expect((await stats.json()).flow.sync).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  });
});
