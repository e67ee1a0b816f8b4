// An event resolves its waits a fixed chunk (50) a call, so no one script
// holds Redis for as long as it has waiters (20,000 waits took one 414 ms
// script). The waits it found are fixed when it is recorded: the sender's
// later calls, or any tick's claim once the sender stopped, resolve the
// rest; a resent call takes the next chunk, so none is resolved twice or
// left out; a wait whose timeout comes while its event is being delivered
// gets the event's data. Counted, never timed.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { encode } from "../../../src/protocol/define.js";
import type { Commit } from "../../../src/workflows/execute.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

const CHUNK = 50;

describe.each(adapterCases)("an event's waits in chunks over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-chunks");
  const { run, call } = scriptCalls(h);
  const scriptCall = call;
  let calls = 0;
  const tick = (claim: number, commits: Commit[] = []) =>
    call(
      protocol.workflow_tick,
      { ticks: "ticks", lease: "tick:T" },
      { tickId: "T", call: ++calls, claim, retentionMs: 60_000, commits },
    );

  /** `n` runs, each parked on a wait for ("paid", "") (with a timeout of `timeoutMs` when given). */
  async function parkRuns(n: number, timeoutMs?: number): Promise<string[]> {
    calls = 0;
    await h.redis.hset(`${h.prefix}tick:T`, "seq", 1);
    await h.redis.pexpire(`${h.prefix}tick:T`, 60_000);
    const ids = Array.from({ length: n }, (_, k) => `r${k}`);
    for (const id of ids) await run(protocol.workflow_start.script, [`wf:run:${id}`], [id, "wf", "null"]);
    const { claimed } = await tick(n);
    const ms = timeoutMs === undefined ? "" : String(timeoutMs);
    const commits: Commit[] = claimed.map((c) => ({
      id: c.id,
      fence: c.fence,
      disposition: "p",
      extra: "",
      steps: [],
      parks: [{ step: "ev", kind: "w", seq: 0, ms, event: "paid", match: "" }],
    }));
    expect((await tick(0, commits)).committed).toEqual(commits.map(() => 1));
    return ids;
  }

  /** The steps "ev" resolved, by their result. */
  async function resolved(ids: string[]): Promise<string[]> {
    const records = await Promise.all(ids.map((id) => h.redis.hget(`${h.prefix}wf:steps:${id}`, "ev")));
    return records.flatMap((r) => (r ? [JSON.stringify(JSON.parse(r).result)] : []));
  }

  const event = (token: string) =>
    run(protocol.workflow_event.script, ["wf:wait:4:paid"], [token, 60_000, "paid", "", '{"ok":1}', "", 60_000]);
  const deliver = (token: string) =>
    call(protocol.workflow_deliver, { event: `wf:event:${token}` }, { token }) as Promise<number>;

  it("the event's call resolves one chunk, and each later call the next, until none is left", async () => {
    const ids = await parkRuns(2 * CHUNK + CHUNK / 2);
    await event("E1");
    expect((await resolved(ids)).length).toBe(CHUNK);
    expect(await deliver("E1")).toBe(CHUNK / 2);
    expect((await resolved(ids)).length).toBe(2 * CHUNK);
    expect(await deliver("E1")).toBe(0);
    expect(await resolved(ids)).toEqual(ids.map(() => '{"ok":1}'));
    expect(await h.redis.zcard(`${h.prefix}wf:due`)).toBe(ids.length);
    // Done: the delivery is gone, and a late call changes nothing.
    expect(await h.redis.keys(`${h.prefix}wf:event:*`)).toEqual([]);
    expect(await h.redis.exists(`${h.prefix}wf:events`, `${h.prefix}wf:pend:4:paid`)).toBe(0);
    expect(await deliver("E1")).toBe(0);
  });

  it("the event's call answers the waits it found and how many are left, and a resend the same", async () => {
    await parkRuns(125);
    const args = encode(
      protocol.workflow_event,
      { waits: "wf:wait:4:paid" },
      {
        token: "E2",
        tokenMs: 60_000,
        event: "paid",
        match: "",
        data: "1",
        id: "",
        retentionMs: 60_000,
      },
    ).args;
    expect(await run(protocol.workflow_event.script, ["wf:wait:4:paid"], args)).toEqual([125, 125 - CHUNK]);
    expect(await run(protocol.workflow_event.script, ["wf:wait:4:paid"], args)).toEqual([125, 125 - CHUNK]);
    expect(await h.redis.scard(`${h.prefix}wf:event:E2:w`)).toBe(125 - CHUNK);
  });

  it("a resent chunk call takes the next chunk: no wait twice, none left out", async () => {
    const ids = await parkRuns(3 * CHUNK + CHUNK / 2);
    await event("E3");
    const twice = [await deliver("E3"), await deliver("E3")];
    expect(twice).toEqual([CHUNK + CHUNK / 2, CHUNK / 2]);
    const done = await resolved(ids);
    expect(done.length).toBe(3 * CHUNK);
    // Each resolved run is due once, with the event's data.
    expect(await h.redis.zcard(`${h.prefix}wf:due`)).toBe(3 * CHUNK);
    expect(new Set(done)).toEqual(new Set(['{"ok":1}']));
  });

  it("a tick's claim resolves a chunk of an event whose sender stopped 5 s ago, and none before", async () => {
    const ids = await parkRuns(225);
    await event("E4");
    // A live sender ends its delivery itself; a tick helps one older than 5 s.
    await h.redis.hset(`${h.prefix}tick:U`, "seq", 1);
    await h.redis.pexpire(`${h.prefix}tick:U`, 60_000);
    const claim = (call: number) =>
      scriptCall(
        protocol.workflow_tick,
        { ticks: "ticks", lease: "tick:U" },
        { tickId: "U", call, claim: 1, retentionMs: 60_000, commits: [] },
      );
    await claim(1);
    expect((await resolved(ids)).length).toBe(CHUNK);
    await h.redis.zadd(`${h.prefix}wf:events`, 0, "E4");
    await claim(2);
    expect((await resolved(ids)).length).toBe(2 * CHUNK);
  });

  it("a wait whose timeout comes while its event is delivered gets the event's data", async () => {
    const ids = await parkRuns(250, 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await event("E5");
    expect((await resolved(ids)).length).toBe(CHUNK);
    // The claim wakes every run due: those not yet resolved are at their timeout.
    await tick(250);
    const results = await resolved(ids);
    expect(results.length).toBe(250);
    expect(new Set(results)).toEqual(new Set(['{"ok":1}']));
    expect(await h.redis.keys(`${h.prefix}wf:event:*`)).toEqual([]);
  });

  it("sendEvent to 450 parked runs answers 450, every wait resolved when it returns", async () => {
    const tq = h.make({}, { workflows: { wf: { run: async () => null } } });
    const ids = await parkRuns(450);
    expect(await tq.workflows.sendEvent("paid", { data: { ok: 1 } })).toBe(450);
    expect((await resolved(ids)).length).toBe(450);
    expect(await tq.workflows.sendEvent("paid", { data: { ok: 1 } })).toBe(0);
  });
});
