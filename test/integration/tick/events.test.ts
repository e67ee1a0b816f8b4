import { describe, expect, it } from "vitest";
import type { DeadEvent, FailedEvent, JobEvent } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("events over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "events");

  it("fire once per outcome, after the ack, from options and tq.on", async () => {
    const succeeded: JobEvent[] = [];
    const failed: FailedEvent[] = [];
    const dead: DeadEvent[] = [];
    let flakyRuns = 0;
    const tq = h.make(
      {
        ok: () => {},
        flaky: {
          backoff: () => 0,
          perform: () => {
            if (++flakyRuns === 1) throw new TypeError("once");
          },
        },
        fatal: {
          retry: false,
          perform: () => {
            throw new RangeError("never");
          },
        },
      },
      { on: { succeeded: (e) => void succeeded.push(e), failed: (e) => void failed.push(e) } },
    );
    const offDead = tq.on("dead", async (e) => {
      // the job is already in the dead set when this runs
      expect(await h.redis.zcard(`${h.prefix}dead`)).toBeGreaterThan(0);
      dead.push(e);
    });
    const [a, b, c] = await tq.enqueueBulk([
      { name: "ok", args: [1] },
      { name: "ok", args: [2] },
      { name: "ok", args: [3] },
    ]);
    const flaky = await tq.enqueue("flaky", ["x"]);
    const fatal = await tq.enqueue("fatal", []);
    await tq.tick();
    await tq.tick(); // flaky's retry
    expect(succeeded.map((e) => e.jid).sort()).toEqual([a, b, c, flaky].sort());
    expect(succeeded.find((e) => e.jid === flaky)).toMatchObject({
      name: "flaky",
      queue: "default",
      args: ["x"],
      attempt: 2,
    });
    expect(failed).toHaveLength(2);
    const first = failed.find((e) => e.jid === flaky)!;
    expect(first).toMatchObject({ name: "flaky", attempt: 1, error: expect.any(TypeError) });
    expect(first.retryAt).toBeInstanceOf(Date);
    expect(failed.find((e) => e.jid === fatal)).toMatchObject({ retryAt: null, error: expect.any(RangeError) });
    expect(dead).toEqual([
      expect.objectContaining({
        jid: fatal,
        name: "fatal",
        reason: "RangeError: never",
        error: expect.any(RangeError),
      }),
    ]);

    offDead();
    await tq.enqueue("fatal", []);
    await tq.tick();
    expect(dead).toHaveLength(1);
  });

  it("a dead job that could not run fires dead with its reason, no failed", async () => {
    const failed: FailedEvent[] = [];
    const dead: DeadEvent[] = [];
    const tq = h.make({}, { on: { failed: (e) => void failed.push(e), dead: (e) => void dead.push(e) } });
    await h.redis.lpush(`${h.prefix}queue:default`, "not json", '{"class":"x","args":{}}');
    await tq.tick();
    expect(failed).toEqual([]);
    expect(dead.map((e) => e.reason).sort()).toEqual([
      'TickqMalformedJob: job "args" is not an array',
      "TickqMalformedJob: job is not valid JSON",
    ]);
    expect(dead.every((e) => e.error === undefined)).toBe(true);
  });

  it("a listener that throws or rejects is logged and breaks nothing; async listeners are awaited", async () => {
    let finished = false;
    const tq = h.make({ ok: () => {} });
    tq.on("succeeded", () => {
      throw new Error("sync listener bug");
    });
    tq.on("succeeded", async () => {
      throw new Error("async listener bug");
    });
    tq.on("succeeded", async () => {
      await new Promise((r) => setTimeout(r, 50));
      finished = true;
    });
    await tq.enqueue("ok", []);
    expect(await tq.tick()).toMatchObject({ succeeded: 1 });
    expect(finished).toBe(true);
    expect(h.logged.filter((l) => /"succeeded" listener failed for job ok .*listener bug/.test(l))).toHaveLength(2);
    expect(await tq.stats()).toMatchObject({ processed: 1, queues: { default: 0 } });
  });

  it("fires nothing for a job its tick no longer held: the tick that ran it again fires once", async () => {
    const succeeded: string[] = [];
    let inner: Promise<unknown> | undefined;
    const on = { succeeded: (e: JobEvent) => void succeeded.push(e.jid) };
    const other = h.make({ job: () => {} }, { on });
    const tq = h.make(
      {
        job: async () => {
          if (inner) return;
          // This tick's lease lapses; another tick resurrects the job and runs it.
          const [tick] = await h.redis.hkeys(`${h.prefix}ticks`);
          await h.redis.del(`${h.prefix}tick:${tick}`, `${h.prefix}resurrector`);
          inner = other.tick();
          // Back once the other tick has taken the job over: it then runs it alone in this
          // process (a suspect), so it waits for this handler to settle, not the other way round.
          while ((await h.redis.hlen(`${h.prefix}suspects`)) === 0) await new Promise((r) => setTimeout(r, 5));
        },
      },
      { on },
    );
    const jid = await tq.enqueue("job", []);
    expect(await tq.tick()).toMatchObject({ succeeded: 1 }); // it ran here, but its ack found the job gone
    expect(await inner).toMatchObject({ resurrected: 1, succeeded: 1 });
    expect(succeeded).toEqual([jid]);
  });
});
