// The Node server's account of a Redis outage: a line when it goes down,
// reminders at a growing interval, a line when it is back.
import { afterEach, describe, expect, it, vi } from "vitest";
import { redisWatch } from "../../src/platforms/node/redis-watch.js";

describe("the Node server's Redis watch", () => {
  afterEach(() => vi.useRealTimers());

  it("says an outage once, then reminds at 5 s, 10 s, 20 s… however often ioredis reports it", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const lines: string[] = [];
    const watch = redisWatch(
      "redis://127.0.0.1:1",
      (l) => lines.push(l),
      (m) => new Error(m),
    );
    // ioredis reports each reconnect attempt: every 100 ms for 10 minutes.
    for (let i = 0; i < 6_000; i++) {
      watch.failed("connect ECONNREFUSED 127.0.0.1:1");
      vi.advanceTimersByTime(100);
    }
    // Lines at 0 s, then 5, 15, 35, 75, 155 and 315 s (the interval doubles up to 5 minutes).
    expect(lines).toHaveLength(7);
    expect(lines[0]).toBe(
      "tickq: Redis at redis://127.0.0.1:1 is unreachable (connect ECONNREFUSED 127.0.0.1:1): is it running? Check REDIS_URL",
    );
    expect(lines[1]).toMatch(/is unreachable for 5 s now .*requests answer 503 until it is back/);
    watch.ready();
    watch.ready();
    expect(lines.slice(7)).toEqual(["tickq: Redis at redis://127.0.0.1:1 is back after 600 s"]);
    expect(watch.down()).toBeUndefined();
  });

  it("knows the errors it raised and the lines that repeat them, only while Redis is down", () => {
    const watch = redisWatch(
      "redis://h:6379",
      () => {},
      (m) => new Error(m),
    );
    watch.failed("connect ETIMEDOUT");
    const raised = watch.unreachable();
    expect(watch.logged(raised)).toBe(true);
    expect(watch.logged(new Error(raised.message))).toBe(false);
    const line = `tickq: could not extend the lease of tick t1: ${raised.message}`;
    expect(watch.repeats(line)).toBe(true);
    expect(watch.repeats("tickq: a job failed")).toBe(false);
    watch.ready();
    expect(watch.repeats(line)).toBe(false);
  });
});
