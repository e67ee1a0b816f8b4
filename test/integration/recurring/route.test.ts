// GET /schedules on the app: authenticated, lists each schedule with its
// spec and next run; stats count them.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { QUIET, setClock } from "./clock.js";

const SECRET = "s3cret-token-for-tests";

describe("GET /schedules", () => {
  const h = useHarness(adapterCases[0]!, "sched-route");

  it("refuses without the secret, lists the schedules with it", async () => {
    const tickq = h.make(
      { report: (_args: [string]) => {}, ping: () => {} },
      {
        schedules: {
          nightly: { cron: "0 3 * * *", timezone: "Europe/Berlin", job: "report", args: ["daily"] },
          heartbeat: { every: 30_000, job: "ping" },
        },
        logger: QUIET,
      },
    );
    const app = createApp({ tickq, secrets: [SECRET] });
    expect((await app.request("/schedules")).status).toBe(401);

    const before = await (await app.request("/schedules", { headers: { Authorization: `Bearer ${SECRET}` } })).json();
    expect(before).toMatchObject([
      { name: "heartbeat", declared: true, inSync: false, nextRunAt: null },
      { name: "nightly" },
    ]);

    await setClock(h.redis, [tickq], Date.UTC(2030, 0, 1, 12, 0, 10));
    await tickq.tick();
    const res = await app.request("/schedules", { headers: { Authorization: `Bearer ${SECRET}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      {
        name: "heartbeat",
        spec: { every: 30_000, job: "ping", args: [], queue: "default", missed: "latest", maxMissed: 100 },
        declared: true,
        inSync: true,
        nextRunAt: "2030-01-01T12:00:30.000Z",
        lastRunAt: null,
        lastJid: null,
        orphanedAt: null,
        paused: false,
        nextRuns: ["2030-01-01T12:00:30.000Z", "2030-01-01T12:01:00.000Z", "2030-01-01T12:01:30.000Z"],
      },
      {
        name: "nightly",
        spec: {
          cron: "0 3 * * *",
          timezone: "Europe/Berlin",
          job: "report",
          args: ["daily"],
          queue: "default",
          missed: "latest",
          maxMissed: 100,
        },
        declared: true,
        inSync: true,
        nextRunAt: "2030-01-02T02:00:00.000Z",
        lastRunAt: null,
        lastJid: null,
        orphanedAt: null,
        paused: false,
        nextRuns: ["2030-01-02T02:00:00.000Z", "2030-01-03T02:00:00.000Z", "2030-01-04T02:00:00.000Z"],
      },
    ]);
    expect((await tickq.stats()).schedules).toBe(2);
  });
});
