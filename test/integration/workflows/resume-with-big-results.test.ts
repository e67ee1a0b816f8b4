// A run whose steps return big results resumes without a second copy of
// them: a claim carries results only up to a budget, the replay reads the
// others when it reaches them in reads of bounded size, and the reply a tick
// keeps for a replay holds no result at all, so it stays small whatever the
// run holds. A run's stored step records have a limit, refused at the step
// that would pass it.
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { scripts } from "../../../src/lua/index.js";
import type { RedisAdapter, RedisReply } from "../../../src/redis/types.js";
import type { WorkflowStep } from "../../../src/workflows/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const KIB = 1024;
const RESULT = 250_000;

/** Step i's result: 250,000 characters that say which step wrote them. */
const resultOf = (i: number) => `${i}:`.padEnd(RESULT, String.fromCharCode(97 + (i % 26)));

/** The most bytes any of the prefix's tick leases holds (the replies kept for replays). */
async function largestLease(redis: Redis, prefix: string): Promise<number> {
  let largest = 0;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}tick:*`, "COUNT", 1_000);
    cursor = next;
    for (const key of keys) largest = Math.max(largest, Number((await redis.memory("USAGE", key)) ?? 0));
  } while (cursor !== "0");
  return largest;
}

/** The adapter, with the size of every workflow_tick and begin reply written down (JSON characters). */
function measuring(adapter: RedisAdapter, sizes: number[]): RedisAdapter {
  const watched = [scripts.workflow_tick, scripts.begin];
  const shas = new Set(watched.map((script) => createHash("sha1").update(script.text).digest("hex")));
  const texts = new Set(watched.map((script) => script.text));
  const note = (measured: boolean) => (reply: RedisReply) => {
    if (measured) sizes.push(JSON.stringify(reply).length);
    return reply;
  };
  return {
    ...adapter,
    evalsha: (sha, keys, args) => adapter.evalsha(sha, keys, args).then(note(shas.has(sha))),
    eval: (script, keys, args) => adapter.eval(script, keys, args).then(note(texts.has(script))),
  };
}

describe.each(adapterCases)("a run of big step results resuming over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-big");

  it("8 results of 250 KB read back intact through a sleep after each, the kept reply under 1 MiB, each step run once", async () => {
    const ran = new Map<number, number>();
    let largest = 0;
    const tq = h.make(
      {},
      {
        workflows: {
          big: {
            run: async (_: null, step) => {
              const wrong: number[] = [];
              for (let i = 0; i < 8; i++) {
                const value = await step.run(`s${i}`, async () => {
                  ran.set(i, (ran.get(i) ?? 0) + 1);
                  largest = Math.max(largest, await largestLease(h.redis, h.prefix));
                  return resultOf(i);
                });
                if (value !== resultOf(i)) wrong.push(i);
                await step.sleep(`nap${i}`, 1);
              }
              return wrong;
            },
          },
        },
      },
    );
    const id = await tq.workflows.start("big", null);
    for (let t = 0; t < 40 && (await tq.workflows.get(id))?.status !== "completed"; t++) {
      await tq.tick({ budgetMs: 5_000 });
    }
    expect(await tq.workflows.result(id, { timeoutMs: 100 })).toEqual([]);
    expect([...ran.values()]).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    expect(largest).toBeGreaterThan(0);
    expect(largest).toBeLessThanOrEqual(KIB * KIB);
  }, 60_000);

  it("no claim carries more than 1 MiB of results, and a run's results past it reach its code", async () => {
    const sizes: number[] = [];
    const tq = h.make(
      {},
      {
        redis: measuring(h.adapter, sizes),
        workflows: {
          big: {
            run: async (_: null, step) => {
              // After the sleep, the replay hands back all six results (1.5 MB) again.
              let read = "";
              for (let i = 0; i < 6; i++) read += (await step.run(`s${i}`, () => resultOf(i))).slice(0, 2);
              await step.sleep("nap", 1);
              return read;
            },
          },
        },
      },
    );
    // Two runs claimed in one call: each has 1.5 MB of results when it resumes after its sleep.
    const ids = [await tq.workflows.start("big", null), await tq.workflows.start("big", null)];
    for (let t = 0; t < 40; t++) {
      const runs = await Promise.all(ids.map((id) => tq.workflows.get(id)));
      if (runs.every((run) => run?.status === "completed")) break;
      await tq.tick({ budgetMs: 5_000 });
    }
    for (const id of ids) expect(await tq.workflows.result(id, { timeoutMs: 100 })).toBe("0:1:2:3:4:5:");
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(KIB * KIB + 16 * KIB);
  }, 60_000);

  it("records stored by an older release, or with their result first, or nested deeper than Redis' cjson reads, resume with their results", async () => {
    const deep = JSON.parse(`${"[".repeat(1_100)}"${"d".repeat(200_000)}"${"]".repeat(1_100)}`) as unknown;
    const results = [resultOf(0), resultOf(1), { pad: resultOf(2).slice(0, 200_000) }, deep];
    const tq = h.make(
      {},
      {
        workflows: {
          stored: {
            run: async (_: null, step) => {
              const same: boolean[] = [];
              for (let i = 0; i < results.length; i++) {
                const value = await step.run(`s${i}`, () => "ran again");
                same.push(JSON.stringify(value) === JSON.stringify(results[i]));
              }
              return same;
            },
          },
        },
      },
    );
    const id = await tq.workflows.start("stored", null);
    const record = (seq: number, result: unknown, resultFirst: boolean) =>
      resultFirst
        ? `{"result":${JSON.stringify(result)},"status":"completed","seq":${seq},"attempts":1}`
        : JSON.stringify({ status: "completed", seq, attempts: 1, result });
    for (const [seq, result] of results.entries()) {
      await h.redis.hset(`${h.prefix}wf:steps:${id}`, `s${seq}`, record(seq, result, seq > 0));
    }
    for (let t = 0; t < 10 && (await tq.workflows.get(id))?.status === "running"; t++) {
      await tq.tick({ budgetMs: 5_000 });
    }
    expect(await tq.workflows.result(id, { timeoutMs: 100 })).toEqual([true, true, true, true]);
  }, 60_000);

  it("the determinism guard names a renamed step whose result its claim left in Redis", async () => {
    const names = (second: string) => async (_: null, step: WorkflowStep) => {
      for (const name of ["a", second, "c"]) await step.run(name, () => resultOf(name.length));
      await step.sleep("nap", "1h");
      return "done";
    };
    const before = h.make({}, { workflows: { renamed: { run: names("b") } } });
    const id = await before.workflows.start("renamed", null);
    await before.tick({ budgetMs: 5_000 });
    expect((await before.workflows.get(id))?.status).toBe("sleeping");
    // The next deployment renamed "b" (a result the claim leaves in Redis: 250 KB after "a"'s).
    await h.redis.hset(`${h.prefix}wf:park:${id}`, "nap", JSON.stringify({ k: "s", q: 3, at: 0 }));
    await h.redis.zadd(`${h.prefix}wf:due`, 0, id);
    const after = h.make({}, { workflows: { renamed: { run: names("x") } } });
    await after.tick({ budgetMs: 5_000 });
    const run = await after.workflows.get(id);
    expect(run?.status).toBe("failed");
    expect(run?.error).toMatchObject({ name: "TickqNonDeterministic" });
    expect(run?.error?.message).toContain('step 2 of this run completed as "b"');
  }, 60_000);

  it("a run whose step records would pass 32 MiB fails at the step that would pass it, with an error naming the limit", async () => {
    let ran = 0;
    const tq = h.make(
      {},
      {
        workflows: {
          hoard: {
            run: async (_: null, step) => {
              for (let i = 0; i < 140; i++) await step.run(`s${i}`, () => (ran++, resultOf(i)));
              return "kept all";
            },
          },
        },
      },
    );
    const id = await tq.workflows.start("hoard", null);
    // The run's status from its hash: workflows.get would read all 32 MiB back at each turn.
    const field = (name: string) => h.redis.hget(`${h.prefix}wf:run:${id}`, name);
    for (let t = 0; t < 20 && (await field("status")) === "running"; t++) await tq.tick({ budgetMs: 10_000 });
    expect(await field("status")).toBe("failed");
    const error = JSON.parse((await field("error")) ?? "null") as { message: string; step: string };
    expect(error.message).toMatch(/32 MiB.*store large data elsewhere/);
    const stored = await h.redis.hvals(`${h.prefix}wf:steps:${id}`);
    const bytes = stored.reduce((sum, record) => sum + Buffer.byteLength(record), 0);
    expect(bytes).toBeLessThanOrEqual(32 * KIB * KIB);
    expect(bytes + RESULT).toBeGreaterThan(32 * KIB * KIB);
    expect(error.step).toBe(`s${stored.length}`);
    expect(ran).toBe(stored.length + 1);
  }, 120_000);
});
