// A tick call Redis never answers (a Redis hung, a network black hole):
// src/tick/calls.ts resends it for at most its patience (≤ redisTimeoutMs)
// after the first failure, so a call that times out every time is sent at
// most twice and the tick rejects within 2 × redisTimeoutMs + patience: the
// resend from the first failure does not keep a dead Redis's caller waiting.
import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/errors.js";
import { begin } from "../../../src/protocol/index.js";
import type { RedisAdapter, RedisReply } from "../../../src/redis/types.js";
import { sha1Hex } from "../../../src/sha1.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const TIMEOUT_MS = 1_000;

/** `inner`, except that every call of `script` is sent and never answered; counts those calls. */
function blackHole(inner: RedisAdapter, sha: string, text: string) {
  const sent = { count: 0 };
  const never = () => {
    sent.count++;
    return new Promise<RedisReply>(() => {});
  };
  const adapter: RedisAdapter = {
    ...inner,
    cluster: inner.cluster,
    wait: inner.wait?.bind(inner),
    evalsha: (s, keys, args) => (s === sha ? never() : inner.evalsha(s, keys, args)),
    eval: (t, keys, args) => (t === text ? never() : inner.eval(t, keys, args)),
  };
  return { adapter, sent };
}

describe.each(adapterCases)("a tick call never answered, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "unanswered");

  it("is sent at most twice, and the tick rejects with the timeout", async () => {
    const hole = blackHole(h.adapter, await sha1Hex(begin.script.text), begin.script.text);
    const tq = h.make({ work: () => {} }, { redis: hole.adapter, redisTimeoutMs: TIMEOUT_MS });
    const error = await tq.tick({ budgetMs: 20_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TickqError);
    expect((error as TickqError).code).toBe("REDIS_TIMEOUT");
    expect(hole.sent.count).toBeGreaterThanOrEqual(1);
    expect(hole.sent.count).toBeLessThanOrEqual(2);
  });
});
