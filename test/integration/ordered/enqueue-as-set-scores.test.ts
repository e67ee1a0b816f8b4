// ordered_enqueue puts 16 new ids or more of one due into a small `ready` as a set (ZUNIONSTORE with
// MIN: ordered_enqueue.lua), which must leave what ZADD LT leaves: each id at the lower of its due and
// the score it waited with (below, above, fractions of a ms), whatever bytes the id holds
// (integers a set keeps as numbers, a NUL, UTF-8, the empty id), and no key of the call's own after.
// (An id already at the due the call writes is the "mixed" case of replay/ordered-enqueue-due-twice.)
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

describe.each(adapterCases)("ordered_enqueue of 16+ ids as a set over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-enqueue-as-set");
  const { call } = scriptCalls(h);

  it("each id at min(due, the score it waited with); integer, NUL, UTF-8 and empty ids kept as sent", async () => {
    const odd = ["7", "-3", "007", "9223372036854775807", "-9223372036854775808", "1e3", "a\u0000b", "é ü", "", " 1"];
    const fresh = [...odd, ...Array.from({ length: 10 }, (_, k) => `f${k}`)];
    const waiting = ["below", "above", "below-half", "above-half", "past"];
    const key = `${h.prefix}o:idx:ready`;
    // The due is Redis' time at the call plus an hour: read back from a fresh id.
    const delayMs = 3_600_000;
    const now = Number((await h.redis.time())[0]) * 1000;
    const due = (await call(
      protocol.ordered_enqueue,
      { names: "ordered" },
      {
        token: "all",
        tokenMs: 60_000,
        payloads: [...fresh, ...waiting].map((id) => ({ name: "idx", id, payload: '"x"', score: "", delayMs })),
      },
    )) as string;
    expect(due).toBe("1".repeat(fresh.length + waiting.length));
    const at = Number(await h.redis.zscore(key, "f0"));
    expect(at).toBeGreaterThanOrEqual(now + delayMs);
    // The same ids again in a second call, the waiting ones first moved below and above its due.
    await h.redis.zadd(key, "XX", 5, "past");
    const scores = await (async () => {
      const fresh2 = Array.from({ length: 16 }, (_, k) => `g${k}`);
      await h.redis.zadd(key, "XX", at + 1e9, "above", at + 1e9 + 0.5, "above-half");
      await h.redis.zadd(key, "XX", at - 1000, "below", at - 1000.5, "below-half");
      await call(
        protocol.ordered_enqueue,
        { names: "ordered" },
        {
          token: "again",
          tokenMs: 60_000,
          payloads: [...fresh2, ...fresh, ...waiting].map((id) => ({
            name: "idx",
            id,
            payload: '"y"',
            score: "",
            delayMs,
          })),
        },
      );
      const flat = await h.redis.zrange(key, "0", "-1", "WITHSCORES");
      const out = new Map<string, number>();
      for (let i = 0; i < flat.length; i += 2) out.set(flat[i]!, Number(flat[i + 1]));
      return out;
    })();
    const now2 = scores.get("g0")!;
    expect(scores.get("above")).toBe(now2);
    expect(scores.get("above-half")).toBe(now2);
    expect(scores.get("below")).toBe(at - 1000);
    expect(scores.get("below-half")).toBe(at - 1000.5);
    expect(scores.get("past")).toBe(5);
    for (const id of fresh) expect(scores.get(id), JSON.stringify(id)).toBe(at);
    expect(scores.size).toBe(fresh.length + waiting.length + 16);
    expect(await h.redis.exists(`${key}-add`)).toBe(0);
  });
});
