// The scripts that speak Sidekiq's layout, run twice with the same arguments as a
// Sidekiq process (three more KEYS, a beat section): the second run leaves
// the state exactly as the first and answers the same. Also ack's `x`
// (dropped, `dead: false`) and the delayed pass's enqueued_at.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { ENQUEUE_KEYS, enqueueArgs, finishArgs, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const job = (n: number) =>
  JSON.stringify({ class: "x", args: [n, 1.0, []], jid: `j${n}`, queue: "default", retry: true });
const LEASE = 5_000;
const PROCESS = { heartbeat: "host:t1", work: "host:t1:work", workers: "host:t1:workers" };
const KEYS = tickKeys("t1", PROCESS);
const INFO = JSON.stringify({ hostname: "host", identity: "host:t1", queues: ["default"] });
const work = (raw: string) => JSON.stringify({ queue: "default", payload: raw, run_at: 1 });

describe.each(adapterCases)("scripts as a Sidekiq process, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sk-twice");
  const { call, callTwice } = scriptCalls(h);

  const beginArgs = beginNamed({ tick: "t1", leaseMs: LEASE, info: INFO });
  const begin = () => call(protocol.begin, KEYS, beginArgs);
  const enqueue = (jobs: string[], delayMs = 0) =>
    call(
      protocol.enqueue,
      ENQUEUE_KEYS,
      enqueueArgs(
        `tok${delayMs}`,
        jobs.map((j) => ({ job: j, delayMs })),
      ),
    );
  /** A beat, numbered, with the jobs running as Sidekiq work entries (tid → work). */
  const beat = (number: number, running: Record<string, string> = {}) => ({
    number,
    running: Object.entries(running).map(([tid, work]) => ({ tid, work })),
  });
  const fetched = () => h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);

  it("begin registers once: processes, heartbeat, and moves a due job with its enqueued_at", async () => {
    await enqueue([job(1)]);
    await enqueue([job(2)], 1);
    await new Promise((r) => setTimeout(r, 5));
    const { after } = await callTwice(protocol.begin, KEYS, beginArgs);
    expect(after.processes).toEqual(["host:t1"]);
    expect(after["host:t1"]).toMatchObject({ info: INFO, busy: "0", tickq_beat: "0" });
    expect(
      (after["inproc:t1:default"] as string[]).some((raw) => /"jid":"j2".*"enqueued_at":\d+\.\d{3}}$/.test(raw)),
    ).toBe(true);
  });

  it("step: a replay neither beats again nor acks twice; a discarded job (x) is dropped once", async () => {
    await enqueue([1, 2, 3].map(job));
    await begin();
    const [a, b, c] = (await fetched()) as [string, string, string];
    const acks = rawAcks({ default: [a] }, [{ code: "x", queue: "default", job: b, updated: "", delay: 0 }]);
    const { after } = await callTwice(
      protocol.step,
      KEYS,
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, beat: beat(1, { w1: work(c) }), acks }),
    );
    expect(after["host:t1"]).toMatchObject({ busy: "1", tickq_beat: "1" });
    expect(after["host:t1:work"]).toEqual({ w1: work(c) });
    expect(after["host:t1:workers"]).toEqual({ w1: work(c) });
    expect(after).toMatchObject({ "stat:processed": "2", "stat:failed": "1", "inproc:t1:default": [c] });
    expect(after.dead).toBeUndefined();
  });

  it("extend: a replayed or older beat changes nothing; a gone heartbeat is never re-created", async () => {
    await enqueue([job(1)]);
    await begin();
    const [a] = (await fetched()) as [string];
    const keys = { lease: "tick:t1", process: PROCESS };
    const extend = (number: number, running?: Record<string, string>) => ({
      tickId: "t1",
      leaseMs: LEASE,
      load: "",
      beat: beat(number, running),
    });
    await callTwice(protocol.extend, keys, extend(2, { w1: work(a) }));
    const now = await snapshot(h.redis, h.prefix);
    await call(protocol.extend, keys, extend(1)); // overtaken by beat 2: ignored
    expect(await snapshot(h.redis, h.prefix)).toEqual(now);
    expect(now["host:t1:work"]).toEqual({ w1: work(a) });
    await h.redis.del(`${h.prefix}host:t1`, `${h.prefix}host:t1:work`, `${h.prefix}host:t1:workers`);
    await call(protocol.extend, keys, extend(3));
    expect(await h.redis.exists(`${h.prefix}host:t1`, `${h.prefix}host:t1:work`)).toBe(0);
  });

  it("finish: leaves processes once, deleting its keys; a replay answers the same", async () => {
    await enqueue([job(1)]);
    await begin();
    const [a] = (await fetched()) as [string];
    const { after } = await callTwice(
      protocol.finish,
      KEYS,
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, beat: beat(2), acks: rawAcks({ default: [a] }) }),
    );
    expect(after.processes).toBeUndefined();
    expect(after["host:t1"]).toBeUndefined();
    expect(after["stat:processed"]).toBe("1");
  });

  it("finish with a job left: beats it, stays listed for the lease", async () => {
    await enqueue([job(1)]);
    await begin();
    const [a] = (await fetched()) as [string];
    const { after } = await callTwice(
      protocol.finish,
      KEYS,
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, beat: beat(1, { w1: work(a) }) }),
    );
    expect(after.processes).toEqual(["host:t1"]);
    expect(after["host:t1"]).toMatchObject({ busy: "1" });
    expect(after["host:t1:work"]).toEqual({ w1: work(a) });
  });
});
