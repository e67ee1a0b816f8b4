// A script call's timeout (redisTimeoutMs): a reply that comes later than it
// (or a failure) is dropped with no unhandled rejection; a reply in time
// clears the timer, so no call keeps a process alive; a custom adapter's
// reply is taken as Promise.resolve takes it, a plain value or a thenable
// as well as a promise (as it was taken before: a race of promises).
import { describe, expect, it } from "vitest";
import { newScriptCache, runScript } from "../../src/redis/adapter.js";
import type { RedisAdapter, RedisReply } from "../../src/redis/types.js";
import { activeTimers, collectUnhandledRejections } from "../helpers/leftovers.js";

const script = { name: "probe", text: "return 1" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const call = (adapter: RedisAdapter, timeoutMs: number) =>
  runScript(adapter, script, ["k"], [], { count: 0 }, timeoutMs, newScriptCache());

function held(): { reply: Promise<RedisReply>; answer(value: RedisReply): void; fail(error: unknown): void } {
  let answer!: (value: RedisReply) => void;
  let fail!: (error: unknown) => void;
  const reply = new Promise<RedisReply>((resolve, reject) => {
    answer = resolve;
    fail = reject;
  });
  return { reply, answer, fail };
}

describe("a script call's timeout", () => {
  const unhandled = collectUnhandledRejections();

  it("fails with REDIS_TIMEOUT and drops a reply or a failure that comes later", async () => {
    for (const late of ["answer", "fail"] as const) {
      const h = held();
      const adapter: RedisAdapter = { evalsha: () => h.reply, eval: () => h.reply };
      await expect(call(adapter, 20)).rejects.toMatchObject({ code: "REDIS_TIMEOUT" });
      if (late === "answer") h.answer(1);
      else h.fail(new Error("late"));
      await sleep(10);
    }
    expect(unhandled).toEqual([]);
  });

  it("clears its timer when the reply or a failure comes in time", async () => {
    const before = activeTimers();
    const answers: RedisAdapter = { evalsha: async () => 7, eval: async () => 7 };
    expect(await call(answers, 60_000)).toBe(7);
    const noScript: RedisAdapter = {
      evalsha: async () => Promise.reject(new Error("NOSCRIPT")),
      eval: async () => 8,
    };
    expect(await call(noScript, 60_000)).toBe(8);
    const fails: RedisAdapter = { evalsha: async () => Promise.reject(new Error("down")), eval: async () => 9 };
    await expect(call(fails, 60_000)).rejects.toMatchObject({ code: "REDIS" });
    expect(activeTimers()).toBe(before);
  });

  it("takes a custom adapter's plain value or thenable as its reply, and clears its timer", async () => {
    const before = activeTimers();
    const plain = { evalsha: () => 7, eval: () => 7 } as unknown as RedisAdapter;
    expect(await call(plain, 60_000)).toBe(7);
    // biome-ignore lint/suspicious/noThenProperty: a custom adapter's thenable reply is the case under test.
    const thenable = { then: (answer: (value: RedisReply) => void) => answer(8) };
    const lazy = { evalsha: () => thenable, eval: () => thenable } as unknown as RedisAdapter;
    expect(await call(lazy, 60_000)).toBe(8);
    expect(activeTimers()).toBe(before);
  });
});
