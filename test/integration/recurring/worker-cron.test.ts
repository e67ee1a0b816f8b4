// A Worker given `cron` from "tickq/cron" (test/fixtures/cron-worker.ts),
// bundled and run in Miniflare over the local Upstash-compatible server:
// croner parses its schedules in workerd, a time zone's included, and a due
// slot is enqueued and run. (The example Worker, given no `cron`, carries
// no croner: test/integration/package/worker-bundle-size.test.ts.)
import { describe, expect, it } from "vitest";
import { cron } from "../../../src/recurring/cron.js";
import type { TickReport } from "../../../src/index.js";
import { sleep } from "../../helpers/redis.js";
import { useWorkerInMiniflare } from "../../helpers/worker-in-miniflare.js";
import { redisNowMs } from "./clock.js";

const SECRET = "worker-cron-s3cret";

/** A schedule as GET /schedules answers it: tq.schedules() in JSON, its dates ISO strings. */
interface Listed {
  name: string;
  declared: boolean;
  inSync: boolean;
  nextRunAt: string | null;
  lastJid: string | null;
}

describe("a Worker given `cron` (Miniflare)", () => {
  const worker = useWorkerInMiniflare("worker-cron", { TICKQ_SECRET: SECRET }, "test/fixtures/cron-worker.ts");
  const call = async <T>(method: "GET" | "POST", path: string): Promise<T> => {
    const res = await worker.mf.dispatchFetch(`https://worker.test${path}`, {
      method,
      headers: { Authorization: `Bearer ${SECRET}` },
    });
    expect(res.status, path).toBe(200);
    return (await res.json()) as T;
  };
  const schedules = async () => new Map((await call<Listed[]>("GET", "/schedules")).map((s) => [s.name, s]));

  it("parses its cron schedules, in a time zone too, and runs a due slot", async () => {
    const before = await redisNowMs(worker.redis);
    await call<TickReport>("POST", "/tick"); // syncs the schedules: each gets its next slot
    const after = await redisNowMs(worker.redis);
    const synced = await schedules();
    expect(synced.get("nightly")).toMatchObject({ declared: true, inSync: true });
    // The slot croner computes in Node for 03:00 Europe/Berlin, at either end of the tick.
    const nightly = [before, after].map((ms) => new Date(cron("0 3 * * *", "Europe/Berlin").after(ms)!).toISOString());
    expect(nightly).toContain(synced.get("nightly")!.nextRunAt);
    const due = Date.parse(synced.get("everySecond")!.nextRunAt!);
    expect(due).toBeGreaterThan(before);
    expect(due).toBeLessThanOrEqual(after + 1_000);

    // Past that slot, a tick enqueues and runs it (a few tries: the machine may be loaded).
    let recurring = 0;
    for (let i = 0; i < 20 && recurring === 0; i++) {
      await sleep(Math.max(0, due - (await redisNowMs(worker.redis))) + 100);
      recurring = (await call<TickReport>("POST", "/tick")).recurring;
    }
    expect(recurring).toBeGreaterThan(0);
    expect((await schedules()).get("everySecond")!.lastJid).toMatch(/^everySecond:\d+000$/);
  }, 60_000);
});
