// A job whose name the ticking code does not register (a rolling
// deploy: new web tier, old ticker; or two apps on one prefix) is retried
// with Sidekiq's backoff, as Sidekiq retries an unknown class, then goes
// dead with the reason once its retries run out. Nothing is lost: a ticker
// that knows the name runs it.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const RAW = '{"class":"Elsewhere","args":[9007199254740993,1.0,[]],"jid":"roll1","queue":"default","retry":1}';

describe.each(adapterCases)("unknown job names over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "unknown-job");

  async function retryEntries(): Promise<[string, number][]> {
    const flat = await h.redis.zrange(`${h.prefix}retry`, "0", "-1", "WITHSCORES");
    const out: [string, number][] = [];
    for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, Number(flat[i + 1])]);
    return out;
  }

  /** Makes every retry entry due now, as if its backoff had passed. */
  async function makeDue(): Promise<void> {
    for (const [member] of await retryEntries()) await h.redis.zadd(`${h.prefix}retry`, 0, member);
  }

  it("goes to the retry set with Sidekiq's first backoff (15–25 s) and TickqUnknownJob; the tick's own jobs run", async () => {
    const ran: number[] = [];
    const oldTicker = h.make({ known: (args: [number]) => void ran.push(args[0]) });
    await oldTicker.enqueue("known", [1]);
    await h.redis.lpush(`${h.prefix}queue:default`, RAW);
    await oldTicker.enqueue("known", [2]);
    const [now] = await h.redis.time();
    const report = await oldTicker.tick();
    expect(report).toMatchObject({ fetched: 3, succeeded: 2, failed: 1, retried: 1, dead: 0 });
    expect(ran.sort()).toEqual([1, 2]);

    const entries = await retryEntries();
    expect(entries).toHaveLength(1);
    const [raw, score] = entries[0]!;
    expect(raw.startsWith(`${RAW.slice(0, -1)},`)).toBe(true); // the job's own bytes, untouched
    const job = JSON.parse(raw);
    expect(job).toMatchObject({ class: "Elsewhere", jid: "roll1", error_class: "TickqUnknownJob", retry_count: 0 });
    expect(job.error_message).toMatch(/Elsewhere/);
    expect(score - Number(now)).toBeGreaterThanOrEqual(15 - 1);
    expect(score - Number(now)).toBeLessThanOrEqual(25 + 1);
    expect(await h.redis.zcard(`${h.prefix}dead`)).toBe(0);
  });

  it("goes dead with the reason once its retries run out", async () => {
    const oldTicker = h.make({ known: () => {} });
    await h.redis.lpush(`${h.prefix}queue:default`, RAW);
    expect(await oldTicker.tick()).toMatchObject({ retried: 1, dead: 0 });
    await makeDue();
    const second = await oldTicker.tick();
    expect(second).toMatchObject({ scheduled: 1, fetched: 1, failed: 1, retried: 0, dead: 1 });
    expect(await retryEntries()).toEqual([]);
    const [dead] = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
    expect(dead!.startsWith(`${RAW.slice(0, -1)},`)).toBe(true);
    const job = JSON.parse(dead!);
    expect(job).toMatchObject({ class: "Elsewhere", error_class: "TickqUnknownJob", retry_count: 1 });
    expect(job.error_message).toMatch(/no job named "Elsewhere"/);
    expect(job.retried_at).toBeGreaterThanOrEqual(job.failed_at);
    expect(await oldTicker.stats()).toMatchObject({ retry: 0, dead: 1, inflight: 0, queues: { default: 0 } });
  });

  it("a job written without `retry` is retried too (Sidekiq's client default), not sent dead", async () => {
    const oldTicker = h.make({ known: () => {} }, { maxRetries: 2 });
    await h.redis.lpush(`${h.prefix}queue:default`, '{"class":"Elsewhere","args":[],"jid":"nr1"}');
    expect(await oldTicker.tick()).toMatchObject({ retried: 1, dead: 0 });
    await makeDue();
    expect(await oldTicker.tick()).toMatchObject({ retried: 1, dead: 0 });
    await makeDue();
    expect(await oldTicker.tick()).toMatchObject({ retried: 0, dead: 1 });
  });

  it("a ticker that registers the name runs the retried job, once", async () => {
    const oldTicker = h.make({ known: () => {} });
    await h.redis.lpush(`${h.prefix}queue:default`, RAW);
    await oldTicker.tick();
    await makeDue();

    const runs: { args: unknown[]; attempt: number; jid: string }[] = [];
    const newTicker = h.make({
      Elsewhere: (args: unknown[], ctx) => void runs.push({ args, attempt: ctx.attempt, jid: ctx.jid }),
    });
    expect(await newTicker.tick()).toMatchObject({ scheduled: 1, fetched: 1, succeeded: 1, failed: 0, dead: 0 });
    expect(runs).toEqual([{ args: [9007199254740993, 1, []], attempt: 2, jid: "roll1" }]);
    expect(await newTicker.tick()).toMatchObject({ fetched: 0, scheduled: 0 });
    expect(runs).toHaveLength(1);
    expect(await newTicker.stats()).toMatchObject({ processed: 2, failed: 1, retry: 0, dead: 0, inflight: 0 });
  });
});
