// debounce.lua run twice with the same arguments: a replay answers the
// first run's jid and writes nothing, whether the call opened a window or
// merged into an open one. The scripts that take a debounced job out of
// `schedule` and so close its window (begin's and housekeep's promotion,
// move.lua's run-now, clear.lua, cancel.lua) close it once: a replay finds the job gone
// and changes nothing.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { housekeepArgs, tickKeys } from "../../helpers/tick-calls.js";

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
  const { call: run, callTwice } = scriptCalls(h);
  const QUEUES = { queues: "queues" };
  const LEASE = 5_000;
  /** Opens the window of reindex:doc1 (due in delayMs); answers the job's text in `schedule`. */
  const open = async (delayMs: number) => {
    await run(protocol.debounce, { schedule: "schedule" }, { ...call("t1", "j1", "a"), delayMs });
    const [text] = await h.redis.zrange(`${h.prefix}schedule`, "0", "-1");
    expect(await h.redis.hget(`${h.prefix}debounce:reindex:doc1`, "text")).toBe(text);
    return text!;
  };
  const closed = async () => expect(await h.redis.exists(`${h.prefix}debounce:reindex:doc1`)).toBe(0);

  it("opening a window, then merging into it: each replay answers the same jid and changes nothing", async () => {
    const opened = await callTwice(protocol.debounce, { schedule: "schedule" }, call("t1", "j1", "a"));
    expect(opened.first).toBe("j1");
    const merged = await callTwice(protocol.debounce, { schedule: "schedule" }, call("t2", "j2", "b"));
    expect(merged.first).toBe("j1");
    const scheduled = merged.after.schedule as string[];
    expect(scheduled).toHaveLength(2); // one member, its score
    expect(scheduled[0]).toMatch(/^\{"class":"reindex","args":\["doc1","b"\],"jid":"j1",/);
  });

  it("begin promoting the debounced job: its window is closed once, the job moved once", async () => {
    await open(1);
    await new Promise((r) => setTimeout(r, 5));
    const tick = { tick: "t1", leaseMs: LEASE };
    const { after } = await callTwice(protocol.begin, beginKeys(tick), beginNamed(tick));
    await closed();
    expect(after.schedule).toBeUndefined();
  });

  it("housekeep promoting the debounced job: its window is closed once, the job queued once", async () => {
    const text = await open(60_000);
    const tick = { tick: "t1", leaseMs: LEASE, batch: 0 };
    await run(protocol.begin, beginKeys(tick), beginNamed(tick)); // registers t1 (its own first call)
    await h.redis.zadd(`${h.prefix}schedule`, "XX", 0, text); // now due
    const { after } = await callTwice(protocol.housekeep, tickKeys("t1"), housekeepArgs({ tick: "t1", call: 2 }));
    await closed();
    expect(after.schedule).toBeUndefined();
    expect(after["queue:default"]).toHaveLength(1);
  });

  it("move.lua running the debounced job now: its window is closed once, the job queued once", async () => {
    const text = await open(60_000);
    const jobs = [{ from: "schedule", job: text, action: "push", push: "", distance: "" }];
    const { first, after } = await callTwice(protocol.move, QUEUES, { token: "m1", keepMs: 60_000, jobs });
    expect(first).toBe("1");
    await closed();
    expect(after["queue:default"]).toHaveLength(1);
  });

  it("clear.lua clearing `schedule`: the window is closed once", async () => {
    await open(60_000);
    const { first } = await callTwice(protocol.clear, { set: "schedule" }, { token: "k1", keepMs: 60_000 });
    expect(first).toBe(1);
    await closed();
  });

  it("cancel.lua cancelling the debounced job: its window is closed once", async () => {
    const text = await open(60_000);
    const cancel = { token: "c1", keepMs: 60_000, jid: "j1", from: "schedule", job: text, distance: "", tick: "" };
    const { first } = await callTwice(protocol.cancel, QUEUES, cancel);
    expect(first).toBe("cancelled");
    await closed();
  });
});
