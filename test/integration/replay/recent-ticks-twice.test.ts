// The recent ticks' list (lib/tick/record-recent.lua) is written by the
// finish call a tick makes anyway: run twice with the same arguments, finish
// keeps its summary once; the list holds the last 100, newest first; a
// summary over 512 bytes, or an empty one, is not kept; a finish whose lease
// is gone (a late one) keeps nothing.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;

describe.each(adapterCases)("the recent ticks over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "recent-ticks");
  const { call, callTwice } = scriptCalls(h);
  const begin = (tick: string) => {
    const options = { tick, leaseMs: LEASE, batch: 1 };
    return call(protocol.begin, beginKeys(options), beginNamed(options));
  };
  const finish = (tick: string, recent: string) =>
    [tickKeys(tick), finishArgs({ tick, leaseMs: LEASE, call: 2, recent })] as const;
  const recent = () => h.redis.lrange(`${h.prefix}ticks:recent`, 0, -1);

  it("keeps a finish's summary once, behind Redis' time, when run twice", async () => {
    await begin("t1");
    const { first, after } = await callTwice(protocol.finish, ...finish("t1", '{"id":"t1","ms":12,"succeeded":3}'));
    expect(after["ticks:recent"]).toEqual([`${first.nowMs} {"id":"t1","ms":12,"succeeded":3}`]);
    const [read] = await h.make({}).ticks.recent();
    expect(read).toEqual({
      id: "t1",
      finishedAt: first.nowMs,
      durationMs: 12,
      counts: { succeeded: 3 },
      leaseLost: false,
      more: false,
    });
  });

  it("holds the last 100, newest first, and keeps no summary over 512 bytes nor an empty one", async () => {
    for (let n = 1; n <= 105; n++) {
      await begin(`t${n}`);
      await call(protocol.finish, ...finish(`t${n}`, JSON.stringify({ id: `t${n}`, ms: n })));
    }
    const kept = await recent();
    expect(kept).toHaveLength(100);
    expect(kept[0]).toMatch(/ \{"id":"t105","ms":105\}$/);
    expect(kept[99]).toMatch(/ \{"id":"t6","ms":6\}$/);
    await begin("big");
    await call(protocol.finish, ...finish("big", JSON.stringify({ id: "big", ms: 1, note: "x".repeat(500) })));
    await begin("none");
    await call(protocol.finish, ...finish("none", ""));
    expect(await recent()).toEqual(kept);
    expect((await h.make({}).ticks.recent()).map((t) => t.id).slice(0, 2)).toEqual(["t105", "t104"]);
  });

  it("keeps nothing from a finish whose lease is gone", async () => {
    await begin("late");
    await h.redis.del(`${h.prefix}tick:late`);
    await call(protocol.finish, ...finish("late", '{"id":"late","ms":1}'));
    expect(await recent()).toEqual([]);
  });
});
