// A cancelled job is no run in the metrics: an ack that settles a job as
// cancelled (its cancel came first, whatever the ack said: success or
// failure) counts it neither as a run nor as a failure, as stat:processed
// does not; it is counted in stat:cancelled, which Prometheus reads as
// tickq_cancelled_total. Run twice, the ack counts nothing again.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { parseScrape } from "../../helpers/prometheus.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { type AckArgs, ENQUEUE_KEYS, enqueueArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
const LEASE = 5_000;

describe.each(adapterCases)("cancelled jobs in the metrics over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "metrics-cancelled");
  const { call, callTwice } = scriptCalls(h);

  it("an ack settling marked jobs as cancelled counts only the others' runs", async () => {
    await call(
      protocol.enqueue,
      ENQUEUE_KEYS,
      enqueueArgs(
        "t",
        [1, 2, 3].map((n) => ({ job: job(n) })),
      ),
    );
    await call(protocol.begin, beginKeys({ tick: "t1", leaseMs: LEASE }), beginNamed({ tick: "t1", leaseMs: LEASE }));
    const [a, b, c] = (await h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1)).reverse() as [
      string,
      string,
      string,
    ];
    // a (a success) and c (a failure) are cancelled before the ack that says otherwise.
    for (const [jid, raw] of [
      ["j1", a],
      ["j3", c],
    ] as const) {
      const args = {
        token: `c${jid}`,
        keepMs: 60_000,
        jid,
        from: "inproc:default",
        job: raw,
        distance: "",
        tick: "t1",
      };
      expect(await call(protocol.cancel, { queues: "queues" }, args)).toBe("marked");
    }
    const acks: AckArgs = {
      succeeded: [{ queue: "default", place: "", jobs: [a, b] }],
      others: {
        items: [{ code: "r", queue: "default", job: c, updated: `${c.slice(0, -1)},"error_class":"E"}`, delay: 30 }],
        metrics: {
          retentionSec: 3_600,
          entries: [
            { name: "x", queue: "default", entries: 2, ms: 312, waitMs: 45, durations: "3 1 7 1", waits: "4 1 1 1" },
          ],
          perItem: [{ name: "x", ms: "7", waitMs: "20" }],
        },
      },
    };
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks }),
    );
    expect(first.cancelled).toEqual([1, 3]);
    // b alone is a run; its group's times came summed with a's, so none are counted.
    expect(after["metrics:total"]).toEqual({ "j|x|r": "1" });
    expect(after["stat:processed"]).toBe("1");
    expect(after["stat:failed"]).toBeUndefined();
    expect(after["stat:cancelled"]).toBe("2");
  });

  it("a job cancelled while it ran is not in metrics.query's runs, and GET /metrics counts it cancelled", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const tq = h.make({
      stubborn: async () => {
        started();
        await held; // ignores its signal and succeeds
      },
      quick: () => {},
    });
    const jid = await tq.enqueue("stubborn", []);
    await tq.enqueue("quick", []);
    const ticking = tq.tick({ budgetMs: 8_000, cancelCheckMs: 100 });
    await running;
    await tq.jobs.cancel(jid);
    release();
    expect(await ticking).toMatchObject({ cancelled: 1, succeeded: 1 });
    const query = await tq.metrics.query({ sinceMs: Date.now() - 120_000 });
    expect(query.jobs.map((j) => [j.name, j.total.runs, j.total.failures])).toEqual([["quick", 1, 0]]);
    const parsed = parseScrape(await tq.metrics.prometheus());
    expect(parsed.value("tickq_cancelled_total")).toBe(1);
    expect(parsed.value("tickq_processed_total")).toBe(1);
    expect(parsed.value("tickq_job_runs_total", { name: "stubborn" })).toBeUndefined();
  });
});
