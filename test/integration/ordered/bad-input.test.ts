// Bad input is a clear TickqError and writes nothing: an unknown ordered
// name, an id that is not a non-empty string, a payload that is not JSON, a
// score that is not finite, an unknown key, a payload over maxJobBytes; the
// error names the job. Bad declarations fail at createTickq.
import { describe, expect, it } from "vitest";
import { createTickq, TickqError, type OrderedBulkJob } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { snapshot } from "../../helpers/snapshot.js";

const circular: Record<string, unknown> = {};
circular.self = circular;

describe.each(adapterCases)("ordered bad input over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-bad");

  it.each([
    [
      "an unknown ordered name",
      { name: "nope", id: "a", payload: 1 },
      "UNKNOWN_JOB",
      /Unknown ordered job "nope".*registered: idx/,
    ],
    ["a plain job's name", { name: "mail", id: "a", payload: 1 }, "UNKNOWN_JOB", /"mail" is a plain job/],
    ["an empty id", { name: "idx", id: "", payload: 1 }, "BAD_ARGS", /id must be a non-empty string/],
    ["a numeric id", { name: "idx", id: 42, payload: 1 }, "BAD_ARGS", /id must be a non-empty string.*number/],
    ["an id of 1,025 characters", { name: "idx", id: "x".repeat(1_025), payload: 1 }, "BAD_ARGS", /at most 1024/],
    ["an undefined payload", { name: "idx", id: "a", payload: undefined }, "BAD_ARGS", /payload must be a JSON value/],
    ["a function payload", { name: "idx", id: "a", payload: () => 1 }, "BAD_ARGS", /payload must be a JSON value/],
    ["a circular payload", { name: "idx", id: "a", payload: circular }, "BAD_ARGS", /payload\.self: a cycle/],
    ["a BigInt payload", { name: "idx", id: "a", payload: 1n }, "BAD_ARGS", /payload: a BigInt/],
    [
      "an infinite score",
      { name: "idx", id: "a", payload: 1, score: Infinity },
      "BAD_ARGS",
      /score must be a finite number/,
    ],
    ["a NaN score", { name: "idx", id: "a", payload: 1, score: NaN }, "BAD_ARGS", /score must be a finite number/],
    ["a string score", { name: "idx", id: "a", payload: 1, score: "7" }, "BAD_ARGS", /score must be a finite number/],
    ["a NaN delay", { name: "idx", id: "a", payload: 1, delayMs: NaN }, "BAD_ARGS", /delayMs must be a finite number/],
    [
      "an unknown key",
      { name: "idx", id: "a", payload: 1, dely: 5 },
      "BAD_ARGS",
      /Ordered job "idx": unknown option "dely"/,
    ],
    [
      "a payload over maxJobBytes",
      { name: "idx", id: "big", payload: "x".repeat(2_000) },
      "JOB_TOO_LARGE",
      /Ordered job "idx" \(id "big"\): its payload is 2002 bytes as stored, over the limit of 1024/,
    ],
  ])("%s: TickqError, and nothing written even for the good payloads beside it", async (_label, bad, code, message) => {
    const tq = h.make({ mail: () => {} }, { maxJobBytes: 1_024, ordered: { idx: { perform: () => {} } } });
    const before = await snapshot(h.redis, h.prefix);
    const call = tq.enqueueOrderedBulk([
      { name: "idx", id: "good", payload: 1 },
      bad as unknown as OrderedBulkJob<"idx">,
    ]);
    await expect(call).rejects.toBeInstanceOf(TickqError);
    await expect(call).rejects.toMatchObject({ code });
    await expect(call).rejects.toThrow(message);
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });

  it("refuses bad declarations at createTickq", () => {
    const make =
      (ordered: unknown, jobs = {}) =>
      () =>
        createTickq({ redis: h.adapter, prefix: h.prefix, jobs, ordered: ordered as never });
    expect(make({ "has space": { perform: () => {} } })).toThrow(/must be 1–128 of/);
    expect(make({ "a:b": { perform: () => {} } })).toThrow(/must be 1–128 of/);
    expect(make({ idx: {} })).toThrow(/needs perform/);
    expect(make({ idx: { perform: () => {} } }, { idx: () => {} })).toThrow(/both in jobs and in ordered/);
    expect(make("nope")).toThrow(TickqError);
  });
});
