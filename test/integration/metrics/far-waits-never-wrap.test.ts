// The ack's metrics (lib/metrics/record-runs.lua) send each count to Redis as '%d' text, formatted once
// for both hashes. Only a whole number within 2^53 goes so: '%d' of one past 2^63 wraps to -2^63, and a
// wait from an `enqueued_at` far in the past (another client's push) wrote the queue's summed wait as
// -9223372036854775808 where the release before had Redis refuse it. A tick counts no wait for an
// `enqueued_at` before 1970, so such a job runs and is counted, its wait left out; large counts within
// 2^53 land as the same digits in both hashes, once however often the ack is sent.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const job = (n: number) => `{"class":"plain","args":[${n}],"jid":"j${n}","queue":"default"}`;

describe.each(adapterCases)("metrics far past what a count holds over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "metrics-far-waits");
  const { call, callTwice } = scriptCalls(h);

  /** Two jobs held by tick t1 (its begin answered: call 1), oldest first. */
  async function held(): Promise<string[]> {
    const jobs = [job(1), job(2)];
    await h.redis.hset(`${h.prefix}tick:t1`, "seq", "1");
    await h.redis.lpush(`${h.prefix}inproc:t1:default`, ...jobs);
    return jobs;
  }

  async function metricFields(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const key of await h.redis.keys(`${h.prefix}metrics:*`)) {
      for (const [field, value] of Object.entries(await h.redis.hgetall(key)))
        out[`${key.slice(h.prefix.length)} ${field}`] = value;
    }
    return out;
  }

  it("a run time or wait past 2^63 is never written wrapped to a negative count", async () => {
    const jobs = await held();
    const acks = {
      succeeded: [{ queue: "default", place: "", jobs: [jobs[0] as string] }],
      others: {
        items: [{ code: "r", queue: "default", job: jobs[1] as string, updated: jobs[1] as string, delay: 10 }],
        metrics: {
          retentionSec: 3_600,
          entries: [
            { name: "plain", queue: "default", entries: 1, ms: 3, waitMs: 2 ** 63, durations: "1 1", waits: "17 1" },
          ],
          perItem: [{ name: "plain", ms: "100000000000000000000", waitMs: "100000000000000000000" }],
        },
      },
    };
    // Redis may refuse a count it cannot add (the release before did): what matters is what it keeps.
    await call(protocol.step, tickKeys("t1"), stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks, batch: 0 })).catch(
      () => undefined,
    );
    for (const [field, value] of Object.entries(await metricFields())) {
      expect(Number(value), field).toBeGreaterThanOrEqual(0);
    }
  });

  it("counts up to 2^53 land as their own digits in both hashes, and a replay adds none", async () => {
    const jobs = await held();
    const ms = 2 ** 53 - 1;
    const acks = {
      succeeded: [{ queue: "default", place: "", jobs }],
      others: {
        items: [],
        metrics: {
          retentionSec: 3_600,
          entries: [
            { name: "plain", queue: "default", entries: 2, ms, waitMs: 1e16, durations: "17 2", waits: "17 2" },
          ],
          perItem: [],
        },
      },
    };
    const { after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks, batch: 0 }),
    );
    const minute = Object.keys(after).find((k) => /^metrics:\d+$/.test(k)) as string;
    for (const key of [minute, "metrics:total"]) {
      expect(after[key]).toMatchObject({
        "j|plain|r": "2",
        "j|plain|ms": "9007199254740991",
        "j|plain|b17": "2",
        "q|default|ms": "10000000000000000",
        "q|default|b17": "2",
      });
    }
    expect(after["stat:processed"]).toBe("2");
  });

  it("a job whose enqueued_at is before 1970 runs and is counted, with no wait", async () => {
    const tq = h.make({ plain: () => {} });
    await tq.enqueue("plain", []);
    const queue = `${h.prefix}queue:default`;
    const [text] = await h.redis.lrange(queue, 0, -1);
    await h.redis.lset(queue, 0, (text as string).replace(/"enqueued_at":[0-9.]+/, '"enqueued_at":-1e17'));
    expect(await tq.tick()).toMatchObject({ fetched: 1, succeeded: 1 });
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBe("1");
    const fields = await metricFields();
    expect(fields["metrics:total j|plain|r"]).toBe("1");
    expect(Object.keys(fields).filter((f) => f.includes("q|default|"))).toEqual([]);
  });
});
