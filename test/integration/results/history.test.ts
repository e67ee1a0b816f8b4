// Succeeded jobs kept as history with their results (keepCompleted):
// listed, found, trimmed by count and by age, in the same ack that settles them.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(adapterCases)("history of succeeded jobs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "results-history");

  it("keeps a succeeded job with its result: list, find and result read it back", async () => {
    const tq = h.make({ resize: ([w]: [number]) => ({ width: w, big: 2 ** 40 }) }, { keepCompleted: { count: 10 } });
    const jid = await tq.enqueue("resize", [640]);
    const report = await tq.tick();
    expect(report.succeeded).toBe(1);

    const page = await tq.jobs.list("succeeded");
    expect(page.jobs).toHaveLength(1);
    expect(page.jobs[0]).toMatchObject({
      state: "succeeded",
      jid,
      name: "resize",
      queue: "default",
      result: { width: 640, big: 2 ** 40 },
    });
    expect(page.jobs[0]!.job.args).toEqual([640]);
    expect(page.jobs[0]!.durationMs).toBeGreaterThanOrEqual(0);

    const found = await tq.jobs.find(jid);
    expect(found).toMatchObject({ state: "succeeded", jid, result: { width: 640, big: 2 ** 40 } });
    const [now] = await h.redis.time();
    expect(Math.abs(found!.finishedAt! - Number(now) * 1000)).toBeLessThan(10_000);

    const result = await tq.jobs.result(jid);
    expect(result).toEqual({
      state: "succeeded",
      value: { width: 640, big: 2 ** 40 },
      finishedAt: found!.finishedAt,
      durationMs: found!.durationMs,
    });
  });

  it("keeps a job whose handler returns nothing, without a value", async () => {
    const tq = h.make({ noop: () => {} }, { keepCompleted: { count: 10 } });
    const jid = await tq.enqueue("noop", []);
    await tq.tick();
    const found = await tq.jobs.find(jid);
    expect(found?.state).toBe("succeeded");
    expect(found && "result" in found).toBe(false);
    expect(await tq.jobs.result(jid)).toMatchObject({ state: "succeeded", value: undefined });
  });

  it("keeps the stored job's own bytes after the members it adds", async () => {
    const tq = h.make({ echo: ([x]: [number]) => x }, { keepCompleted: { count: 10 } });
    await tq.enqueue("echo", [1.0]);
    const [queued] = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    await tq.tick();
    const [kept] = await h.redis.zrange(`${h.prefix}succeeded`, "0", "-1");
    expect(kept!.startsWith('{"tickq_result":1,"tickq_duration_ms":')).toBe(true);
    expect(kept!.endsWith(queued!.slice(1))).toBe(true);
  });

  it("keeps only the newest `count` succeeded jobs", async () => {
    const tq = h.make({ echo: ([n]: [number]) => n }, { keepCompleted: { count: 3 } });
    for (let n = 1; n <= 5; n++) {
      await tq.enqueue("echo", [n]);
      await tq.tick();
    }
    const page = await tq.jobs.list("succeeded");
    expect(page.jobs.map((j) => j.result)).toEqual([5, 4, 3]); // newest first
    expect(await h.redis.zcard(`${h.prefix}succeeded`)).toBe(3);
  });

  it("drops succeeded jobs older than `ageMs` when later ones are kept", async () => {
    const tq = h.make({ echo: ([n]: [number]) => n }, { keepCompleted: { count: 100, ageMs: 1_000 } });
    const old = await tq.enqueue("echo", [1]);
    await tq.tick();
    expect((await tq.jobs.find(old))?.state).toBe("succeeded");
    await sleep(1_100);
    await tq.enqueue("echo", [2]);
    await tq.tick();
    const page = await tq.jobs.list("succeeded");
    expect(page.jobs.map((j) => j.result)).toEqual([2]);
    expect(await tq.jobs.find(old)).toBeNull();
    expect(await tq.jobs.result(old)).toEqual({ state: "unknown" });
  });

  it("pages succeeded jobs with the cursor rules of the other states", async () => {
    const tq = h.make({ echo: ([n]: [number]) => n }, { keepCompleted: { count: 100 } });
    await tq.enqueueBulk(Array.from({ length: 7 }, (_, n) => ({ name: "echo" as const, args: [n] as [number] })));
    await tq.tick({ batch: 10 });
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page = await tq.jobs.list("succeeded", { limit: 3, order: "oldest", cursor });
      seen.push(...page.jobs.map((j) => j.result));
      cursor = page.cursor;
    } while (cursor);
    expect(seen.sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("keeps a result over maxResultBytes as a note; the job still succeeded", async () => {
    const tq = h.make({ big: () => "x".repeat(200) }, { keepCompleted: { count: 10 }, maxResultBytes: 100 });
    const jid = await tq.enqueue("big", []);
    const report = await tq.tick();
    expect(report).toMatchObject({ succeeded: 1, failed: 0 });
    expect(await h.redis.zcard(`${h.prefix}retry`)).toBe(0);
    const result = await tq.jobs.result(jid);
    expect(result).toMatchObject({ state: "succeeded", value: undefined });
    expect(result.state === "succeeded" && result.resultError).toMatch(
      /202 bytes of JSON, over maxResultBytes \(100\)/,
    );
  });

  it("keeps a result JSON cannot carry as a note; the job still succeeded", async () => {
    const tq = h.make({ odd: () => 10n }, { keepCompleted: { count: 10 } });
    const jid = await tq.enqueue("odd", []);
    expect((await tq.tick()).succeeded).toBe(1);
    const result = await tq.jobs.result(jid);
    expect(result.state === "succeeded" && result.resultError).toMatch(/not JSON/);
  });

  it("keeps nothing with keepCompleted 0 (the default)", async () => {
    const tq = h.make({ echo: ([n]: [number]) => n });
    const jid = await tq.enqueue("echo", [1]);
    await tq.tick();
    expect(await h.redis.exists(`${h.prefix}succeeded`)).toBe(0);
    expect(await tq.jobs.result(jid)).toEqual({ state: "unknown" });
    expect((await tq.jobs.list("succeeded")).jobs).toEqual([]);
  });

  it("deletes a succeeded job by jid, and all of them", async () => {
    const tq = h.make({ echo: ([n]: [number]) => n }, { keepCompleted: { count: 10 } });
    const [a] = await tq.enqueueBulk([
      { name: "echo", args: [1] },
      { name: "echo", args: [2] },
    ]);
    await tq.tick();
    expect((await tq.jobs.delete(a!)).state).toBe("succeeded");
    expect(await tq.jobs.find(a!)).toBeNull();
    expect(await tq.jobs.deleteAll("succeeded")).toBe(1);
  });

  it("answers where a job stands before it ended", async () => {
    const tq = h.make({
      fail: {
        perform: () => {
          throw new TypeError("nope");
        },
        retry: false,
      },
      echo: ([n]: [number]) => n,
    });
    const queued = await tq.enqueue("echo", [1]);
    const scheduled = await tq.enqueue("echo", [2], { delayMs: 60_000 });
    expect(await tq.jobs.result(queued)).toEqual({ state: "queued" });
    expect(await tq.jobs.result(scheduled)).toEqual({ state: "scheduled" });
    const dead = await tq.enqueue("fail", []);
    await tq.tick();
    expect(await tq.jobs.result(dead)).toEqual({ state: "dead", error: { class: "TypeError", message: "nope" } });
    expect(await tq.jobs.result("never-enqueued")).toEqual({ state: "unknown" });
  });

  it("refuses a keepCompleted without a count", () => {
    expect(() => h.make({ echo: () => 1 }, { keepCompleted: { ageMs: 1_000 } as never })).toThrow(
      /keepCompleted needs a count/,
    );
  });
});
