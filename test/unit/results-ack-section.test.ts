// What a tick's ack sends for results (src/results/record.ts): nothing at all
// for jobs neither kept nor awaited, so such apps send the ack they always sent.
import { describe, expect, it } from "vitest";
import type { Outcome } from "../../src/tick/passes/ack.js";
import { resultSettings } from "../../src/results/settings.js";
import type { FetchedJob } from "../../src/tick/passes/fetch.js";
import type { JobPayload } from "../../src/job/payload.js";
import { ackArgv } from "../helpers/begin-args.js";

const fetched = (jid: string, extra = ""): FetchedJob =>
  ({
    raw: `{"class":"x","args":[],"jid":"${jid}","queue":"default"${extra}}`,
    queue: "default",
    resurrections: 0,
    interruptions: 0,
  }) as FetchedJob;
const payload = (jid: string, awaited = false): JobPayload => ({
  class: "x",
  args: [],
  jid,
  queue: "default",
  retry: true,
  ...(awaited ? { tickq_await: 1 } : {}),
});
const success = (jid: string, value: unknown, awaited = false): Outcome => ({
  kind: "succeeded",
  job: fetched(jid),
  payload: payload(jid, awaited),
  value,
  durationMs: 5,
});

describe("the results section of an ack", () => {
  it("is absent with keepCompleted 0 and no awaited job, whatever the handlers returned", () => {
    const outcomes = [success("a", { big: 1 }), success("b", undefined)];
    const none = resultSettings(0, undefined);
    expect(ackArgv(outcomes, none)).toEqual(ackArgv(outcomes));
    // The two successes go joined in one value (src/protocol/define.ts `joined`).
    expect(ackArgv(outcomes, none)).toEqual([1, "default", "", "j2", `${fetched("a").raw}\x1e${fetched("b").raw}`, 0]);
  });

  it("names each kept success by its ack entry, with its result and duration", () => {
    const keep = resultSettings({ count: 10, ageMs: 60_000 }, undefined);
    const args = ackArgv([success("a", { w: 1 }), success("b", undefined)], keep);
    expect(args.slice(5)).toEqual([
      "0 2 10 60 3600000",
      1,
      "succeeded",
      1,
      "",
      '"tickq_result":{"w":1},"tickq_duration_ms":5',
      2,
      "succeeded",
      1,
      "",
      '"tickq_duration_ms":5',
    ]);
  });

  it("carries buffered progress as entries numbered 0, with or without results", () => {
    const none = resultSettings(0, undefined);
    expect(ackArgv([success("a", 1)], none, [["r1", "0.5"]]).slice(5)).toEqual([
      "0 1 0 86400 3600000",
      0,
      "progress",
      0,
      "r1",
      "0.5",
    ]);
  });

  it("carries only the awaited job's outcome without history, and its error when it died", () => {
    const none = resultSettings(0, undefined);
    const dead: Outcome = {
      kind: "dead",
      job: fetched("c"),
      updated: "{}",
      handlerFailed: true,
      payload: payload("c", true),
      error: new RangeError("wide"),
    };
    const args = ackArgv([success("a", 1), success("b", 2, true), dead], none);
    expect(args.slice(5)).toEqual([
      "1 2 0 86400 3600000",
      "d",
      "default",
      fetched("c").raw,
      "{}",
      0,
      2,
      "succeeded",
      0,
      "b",
      '"tickq_result":2,"tickq_duration_ms":5',
      3,
      "dead",
      0,
      "c",
      '"error":{"class":"RangeError","message":"wide"}',
    ]);
  });
});
