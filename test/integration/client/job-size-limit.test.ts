// A job too large for the runtimes is refused at enqueue with JOB_TOO_LARGE
// naming the limit, nothing written; bulk calls are split by bytes so no
// request outgrows what Upstash accepts (10 MB).
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { TickqError } from "../../../src/errors.js";
import { CALL_BYTES, DEFAULT_MAX_JOB_BYTES } from "../../../src/job/size.js";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const SECRET = "size-secret-for-tests";

/** The adapter, recording the bytes of every call's arguments. */
function measured(adapter: RedisAdapter, sizes: number[]): RedisAdapter {
  const size = (keys: string[], args: string[]) => [...keys, ...args].reduce((n, a) => n + Buffer.byteLength(a), 0);
  return {
    evalsha: (sha, keys, args) => (sizes.push(size(keys, args)), adapter.evalsha(sha, keys, args)),
    eval: (script, keys, args) => (sizes.push(size(keys, args)), adapter.eval(script, keys, args)),
  };
}

async function thrown(promise: Promise<unknown>): Promise<TickqError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TickqError);
  return error as TickqError;
}

describe.each(adapterCases)("job size limit over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "job-size");
  const keys = async () => (await h.redis.keys(`${h.prefix}*`)).sort();

  it("refuses a job over maxJobBytes with JOB_TOO_LARGE naming the limit, and writes nothing of its bulk", async () => {
    const tq = h.make({ store: () => {} }, { maxJobBytes: 4_096 });
    const error = await thrown(
      tq.enqueueBulk([
        { name: "store", args: ["small"] },
        { name: "store", args: ["x".repeat(5_000)] },
      ]),
    );
    expect(error.code).toBe("JOB_TOO_LARGE");
    expect(error.message).toMatch(/over the limit of 4096 bytes \(maxJobBytes\)/);
    expect(await keys()).toEqual([]);
    // UTF-8 bytes count, not characters: 1,400 three-byte characters are 4,200 bytes
    expect((await thrown(tq.enqueue("store", ["€".repeat(1_400)]))).code).toBe("JOB_TOO_LARGE");
    await tq.enqueue("store", ["x".repeat(3_900)]);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
  });

  it("refuses an ordered payload over maxJobBytes, nothing written", async () => {
    const tq = h.make({}, { maxJobBytes: 4_096, ordered: { sync: { perform: async () => {} } } });
    const error = await thrown(
      tq.enqueueOrderedBulk([
        { name: "sync", id: "a", payload: 1 },
        { name: "sync", id: "b", payload: "y".repeat(5_000) },
      ]),
    );
    expect(error.code).toBe("JOB_TOO_LARGE");
    expect(error.message).toMatch(/Ordered job "sync" \(id "b"\).*4096 bytes/);
    expect(await keys()).toEqual([]);
  });

  it("accepts up to 1 MiB by default and refuses more", async () => {
    const ran: number[] = [];
    const tq = h.make({ store: ([blob]: [string]) => void ran.push(blob.length) });
    expect((await thrown(tq.enqueue("store", ["z".repeat(DEFAULT_MAX_JOB_BYTES)]))).code).toBe("JOB_TOO_LARGE");
    await tq.enqueue("store", ["z".repeat(DEFAULT_MAX_JOB_BYTES - 200)]);
    const report = await tq.tick({ budgetMs: 10_000 });
    expect(report.succeeded).toBe(1);
    expect(ran).toEqual([DEFAULT_MAX_JOB_BYTES - 200]);
  });

  it("splits a bulk enqueue by bytes: no call carries more than the call bound, every job lands", async () => {
    const sizes: number[] = [];
    const jobs = { store: () => {} };
    const tq = h.make(jobs, { redis: measured(h.adapter, sizes) });
    const blob = "b".repeat(400_000);
    await tq.enqueueBulk(Array.from({ length: 30 }, (_, i) => ({ name: "store" as const, args: [blob, i] })));
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(30);
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(CALL_BYTES + 10_000);
  });

  it("answers 413 with code JOB_TOO_LARGE over HTTP", async () => {
    const tickq = h.make({ store: () => {} }, { maxJobBytes: 8_192 });
    const app = createApp({ tickq, secrets: [SECRET], maxBodyBytes: 1024 * 1024 });
    const res = await app.request("/jobs", {
      method: "POST",
      headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "store", args: ["q".repeat(10_000)] }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "JOB_TOO_LARGE", error: expect.stringMatching(/8192 bytes/) });
    expect(await keys()).toEqual([]);
  });

  it("refuses a maxJobBytes below 1 KiB at start", () => {
    expect(() => h.make({}, { maxJobBytes: 10 })).toThrow(/maxJobBytes must be an integer ≥ 1024/);
  });
});
