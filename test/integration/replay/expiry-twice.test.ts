// Expiry's Lua (lib/expiry/stamp-expiry.lua in enqueue, lib/expiry/expire-fetched.lua
// in begin, step and recurring's fetch) run twice with the same arguments: a
// replayed enqueue stamps and pushes once; a replayed fetch answers the kept
// reply, with the same expired jobs, and records none of them twice.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { ENQUEUE_KEYS, enqueueArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const job = (n: number, expiresInMs?: number, awaited = false) =>
  JSON.stringify({
    ...(expiresInMs === undefined ? {} : { tickq_expires_in: expiresInMs }),
    class: "x",
    args: [n],
    jid: `j${n}`,
    queue: "default",
    retry: true,
    ...(awaited ? { tickq_await: 1 } : {}),
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(adapterCases)("expiry run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "expiry-replay");
  const { call, callTwice } = scriptCalls(h);
  /** enqueue.lua's ARGV by name: the call token, the jobs for `default`. */
  const enqueue = (token: string, jobs: string[]) =>
    enqueueArgs(
      token,
      jobs.map((j) => ({ job: j })),
    );
  const begin = { tick: "t1", leaseMs: LEASE, batch: 10 };

  it("enqueue: a replay stamps and pushes the job once, with its expiry by Redis' clock", async () => {
    const before = Date.now();
    const { after } = await callTwice(protocol.enqueue, ENQUEUE_KEYS, enqueue("t", [job(1, 5_000)]));
    const queued = after["queue:default"] as string[];
    expect(queued).toHaveLength(1);
    const stored = JSON.parse(queued[0]!) as { tickq_expires_at: number };
    expect(queued[0]).toMatch(/^\{"tickq_expires_at":\d+,"class":"x"/);
    expect(stored.tickq_expires_at).toBeGreaterThanOrEqual(before + 5_000 - 1_000);
    expect(stored.tickq_expires_at).toBeLessThan(Date.now() + 5_000 + 1_000);
  });

  it("begin: a replay answers the same expired jobs and records none twice", async () => {
    await call(protocol.enqueue, ENQUEUE_KEYS, enqueue("t", [job(1, 1, true), job(2, 1), job(3)]));
    await sleep(20);
    const { first, after } = await callTwice(protocol.begin, beginKeys(begin), beginNamed(begin));
    expect((first.expired ?? []).map((t) => (JSON.parse(t) as { jid: string }).jid)).toEqual(["j1", "j2"]);
    expect(after.expired).toHaveLength(4); // two members, two scores
    expect(after["stat:expired"]).toBe("2");
    expect(after["inproc:t1:default"]).toHaveLength(1);
    // The awaited one's outcome record, written once.
    expect(after["result:j1"]).toMatch(/^\{"state":"expired","finished_at":\d+,"expires_at":\d+\}$/);
    expect(after["result:j2"]).toBeUndefined();
  });

  it("step: a replay answers the same expired jobs and records none twice", async () => {
    await call(protocol.begin, beginKeys(begin), beginNamed(begin));
    await call(protocol.enqueue, ENQUEUE_KEYS, enqueue("t", [job(1, 1), job(2)]));
    await sleep(20);
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2 }),
    );
    expect(first.expired).toHaveLength(1);
    expect(after["stat:expired"]).toBe("1");
    expect(after["inproc:t1:default"]).toHaveLength(1);
  });
});
