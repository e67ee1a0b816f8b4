// The scripts that speak Sidekiq's layout, run twice with the same arguments as a
// Sidekiq process (three more KEYS, a beat section): the second run leaves
// the state exactly as the first and answers the same. Also ack's `x`
// (dropped, `dead: false`) and the delayed pass's enqueued_at.
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import type { LuaScript } from "../../../src/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { beginArgs as encodeBegin } from "../../helpers/begin-args.js";

const job = (n: number) =>
  JSON.stringify({ class: "x", args: [n, 1.0, []], jid: `j${n}`, queue: "default", retry: true });
const FETCH_10 = [10, 1, "default", 0];
const LEASE = 5_000;
const SK = ["host:t1", "host:t1:work", "host:t1:workers"];
const INFO = JSON.stringify({ hostname: "host", identity: "host:t1", queues: ["default"] });
const work = (raw: string) => JSON.stringify({ queue: "default", payload: raw, run_at: 1 });

describe.each(adapterCases)("scripts as a Sidekiq process, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sk-twice");
  const calls = scriptCalls(h);
  const run = calls.run;
  const twice = async (script: LuaScript, keys: string[], args: (string | number)[]) =>
    (await calls.twice(script, keys, args)).after;

  const beginArgs = encodeBegin({ tick: "t1", leaseMs: LEASE, info: INFO });
  const enqueue = (jobs: string[], delayMs = 0) =>
    run(
      scripts.enqueue,
      ["queues", "schedule"],
      [`tok${delayMs}`, 60_000, 60_000, jobs.length, ...jobs.flatMap((j) => ["default", delayMs, 0, "", j])],
    );
  const fetched = () => h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);

  it("begin registers once: processes, heartbeat, and moves a due job with its enqueued_at", async () => {
    await enqueue([job(1)]);
    await enqueue([job(2)], 1);
    await new Promise((r) => setTimeout(r, 5));
    const after = await twice(scripts.begin, ["ticks", "tick:t1", ...SK], beginArgs);
    expect(after.processes).toEqual(["host:t1"]);
    expect(after["host:t1"]).toMatchObject({ info: INFO, busy: "0", tickq_beat: "0" });
    expect(
      (after["inproc:t1:default"] as string[]).some((raw) => /"jid":"j2".*"enqueued_at":\d+\.\d{3}}$/.test(raw)),
    ).toBe(true);
  });

  it("step: a replay neither beats again nor acks twice; a discarded job (x) is dropped once", async () => {
    await enqueue([1, 2, 3].map(job));
    await run(scripts.begin, ["ticks", "tick:t1", ...SK], beginArgs);
    const [a, b, c] = (await fetched()) as [string, string, string];
    const beat = [1, 1, "w1", work(c)];
    const acks = [1, "default", 1, a, 1, "x", "default", b, "", 0];
    const after = await twice(
      scripts.step,
      ["ticks", "tick:t1", ...SK],
      ["t1", LEASE, 100, 3_600, 2, ...beat, ...acks, ...FETCH_10],
    );
    expect(after["host:t1"]).toMatchObject({ busy: "1", tickq_beat: "1" });
    expect(after["host:t1:work"]).toEqual({ w1: work(c) });
    expect(after["host:t1:workers"]).toEqual({ w1: work(c) });
    expect(after).toMatchObject({ "stat:processed": "2", "stat:failed": "1", "inproc:t1:default": [c] });
    expect(after.dead).toBeUndefined();
  });

  it("extend: a replayed or older beat changes nothing; a gone heartbeat is never re-created", async () => {
    await enqueue([job(1)]);
    await run(scripts.begin, ["ticks", "tick:t1", ...SK], beginArgs);
    const [a] = (await fetched()) as [string];
    const keys = ["tick:t1", ...SK];
    await twice(scripts.extend, keys, ["t1", LEASE, "", 2, 1, "w1", work(a)]);
    const now = await snapshot(h.redis, h.prefix);
    await run(scripts.extend, keys, ["t1", LEASE, "", 1, 0]); // overtaken by beat 2: ignored
    expect(await snapshot(h.redis, h.prefix)).toEqual(now);
    expect(now["host:t1:work"]).toEqual({ w1: work(a) });
    await h.redis.del(`${h.prefix}host:t1`, `${h.prefix}host:t1:work`, `${h.prefix}host:t1:workers`);
    await run(scripts.extend, keys, ["t1", LEASE, "", 3, 0]);
    expect(await h.redis.exists(`${h.prefix}host:t1`, `${h.prefix}host:t1:work`)).toBe(0);
  });

  it("finish: leaves processes once, deleting its keys; a replay answers the same", async () => {
    await enqueue([job(1)]);
    await run(scripts.begin, ["ticks", "tick:t1", ...SK], beginArgs);
    const [a] = (await fetched()) as [string];
    const after = await twice(
      scripts.finish,
      ["ticks", "tick:t1", ...SK],
      ["t1", LEASE, 100, 3_600, 2, 2, 0, 1, "default", 1, a, 0, 1, "default"],
    );
    expect(after.processes).toBeUndefined();
    expect(after["host:t1"]).toBeUndefined();
    expect(after["stat:processed"]).toBe("1");
  });

  it("finish with a job left: beats it, stays listed for the lease", async () => {
    await enqueue([job(1)]);
    await run(scripts.begin, ["ticks", "tick:t1", ...SK], beginArgs);
    const [a] = (await fetched()) as [string];
    const after = await twice(
      scripts.finish,
      ["ticks", "tick:t1", ...SK],
      ["t1", LEASE, 100, 3_600, 2, 1, 1, "w1", work(a), 0, 0, 1, "default"],
    );
    expect(after.processes).toEqual(["host:t1"]);
    expect(after["host:t1"]).toMatchObject({ busy: "1" });
    expect(after["host:t1:work"]).toEqual({ w1: work(a) });
  });
});
