// kick.lua and parallel.lua, each call run twice with the same arguments:
// the second run leaves the state as the first left it and answers the same
// (test/integration/replay/scripts-twice.test.ts does the same for the tick's scripts).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

const TTL = 60_000;

describe.each(adapterCases)("kick and parallel run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "kick-replay");
  const { call, callTwice } = scriptCalls(h);
  const KICK_KEYS = { kicks: "kicks", waiting: "kicks:waiting" };
  const kickArgs = (op: string, token: string, arg: string | number) => ({ op, token, arg: String(arg), ttlMs: TTL });
  const kick = (op: string, token: string, arg: string | number) =>
    call(protocol.kick, KICK_KEYS, kickArgs(op, token, arg));

  it("kick take: a replayed take holds one slot, a replayed refusal stays refused", async () => {
    expect((await callTwice(protocol.kick, KICK_KEYS, kickArgs("take", "a", 1))).first).toBe(1);
    const { first, after } = await callTwice(protocol.kick, KICK_KEYS, kickArgs("take", "b", 1));
    expect(first).toBe(0);
    expect(Object.keys(after).sort()).toEqual(["kicks", "kicks:waiting"]);
    expect(await h.redis.zcard(`${h.prefix}kicks`)).toBe(1);
  });

  it("kick done: a replay after a hand-over still hands over once; after a release still releases", async () => {
    await kick("take", "a", 1);
    await kick("take", "b", 1); // refused: written down for the holder
    await new Promise((r) => setTimeout(r, 5)); // the next tick begins after the refusal
    const handed = await callTwice(protocol.kick, KICK_KEYS, kickArgs("done", "a", "a2"));
    expect(handed.first).toBe(1);
    expect(await h.redis.zrange(`${h.prefix}kicks`, "0", "-1")).toEqual(["a2"]);
    // nothing refused since a2's tick began: released
    const released = await callTwice(protocol.kick, KICK_KEYS, kickArgs("done", "a2", "a3"));
    expect(released.first).toBe(0);
    expect(await h.redis.zcard(`${h.prefix}kicks`)).toBe(0);
  });

  it("kick free: a replay frees nothing more", async () => {
    await kick("take", "a", 2);
    await kick("take", "b", 2);
    await callTwice(protocol.kick, KICK_KEYS, kickArgs("free", "a", 0));
    expect(await h.redis.zrange(`${h.prefix}kicks`, "0", "-1")).toEqual(["b"]);
  });

  it("parallel: a replayed grant takes no second slot; a tick that began and ended is never reserved again", async () => {
    const KEYS = { ticks: "ticks", reserved: "ticks:reserved" };
    const grant = (ids: string[]) => callTwice(protocol.parallel, KEYS, { maxLive: 2, reserveMs: 15_000, ids });
    const { first } = await grant(["t1", "t2", "t3"]);
    expect(first).toEqual({ granted: 2, others: 0 });
    expect(await h.redis.zcard(`${h.prefix}ticks:reserved`)).toBe(2);
    // t1 began and finished: its slot is free again, and t1 itself is not granted twice
    await call(protocol.begin, beginKeys({ tick: "t1", leaseMs: 60_000 }), beginNamed({ tick: "t1", leaseMs: 60_000 }));
    await h.redis.del(`${h.prefix}tick:t1`, `${h.prefix}ticks`);
    const again = await grant(["t1"]);
    expect(again.first).toEqual({ granted: 0, others: 1 });
    expect(await grant(["t4"]).then((r) => r.first)).toEqual({ granted: 1, others: 1 });
  });

  it("parallel: a tick an older version began (its sorted set `begun`) is not reserved again either", async () => {
    const KEYS = { ticks: "ticks", reserved: "ticks:reserved" };
    const grant = (ids: string[]) => callTwice(protocol.parallel, KEYS, { maxLive: 2, reserveMs: 15_000, ids });
    expect((await grant(["t1", "t2"])).first).toEqual({ granted: 2, others: 0 });
    await h.redis.zadd(`${h.prefix}begun`, Date.now(), "t1");
    expect((await grant(["t1"])).first).toEqual({ granted: 0, others: 1 });
  });
});
