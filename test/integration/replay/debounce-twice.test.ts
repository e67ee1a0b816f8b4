// debounce.lua run twice with the same arguments: a replay answers the
// first run's jid and writes nothing, whether the call opened a window or
// merged into an open one.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

const job = (jid: string, v: string) =>
  JSON.stringify({ class: "reindex", args: ["doc1", v], jid, queue: "default", retry: true });
const call = (token: string, jid: string, v: string) => ({
  token,
  tokenMs: 60_000,
  key: "reindex:doc1",
  delayMs: 1_000,
  maxDelayMs: 5_000,
  jid,
  job: job(jid, v),
});

describe.each(adapterCases)("debounce run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "debounce-replay");
  const { callTwice } = scriptCalls(h);

  it("opening a window, then merging into it: each replay answers the same jid and changes nothing", async () => {
    const opened = await callTwice(protocol.debounce, { schedule: "schedule" }, call("t1", "j1", "a"));
    expect(opened.first).toBe("j1");
    const merged = await callTwice(protocol.debounce, { schedule: "schedule" }, call("t2", "j2", "b"));
    expect(merged.first).toBe("j1");
    const scheduled = merged.after.schedule as string[];
    expect(scheduled).toHaveLength(2); // one member, its score
    expect(scheduled[0]).toMatch(/^\{"class":"reindex","args":\["doc1","b"\],"jid":"j1",/);
  });
});
