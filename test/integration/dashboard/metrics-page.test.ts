// The Metrics page in a real headless Chromium, served by the Node server over
// the real Redis: its runs, failures, p50/p95/p99 per job name and its waits
// and latency per queue, and its ordered jobs' runs and waits, are the numbers metrics.query() gives for the window
// the page states; its charts are inline SVG and the page loads no script or
// style the CSP refuses. Takes the docs' screenshot as browser.test.ts does.
import { mkdirSync } from "node:fs";
import { expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { describeWithChromium } from "./chromium.js";
import { useDashboardServer } from "./use-dashboard-server.js";

const SECRET = "metrics-s3cret-for-tests";
const SHOTS = process.env.TICKQ_UPDATE_SCREENSHOTS === "1" ? "docs/screenshots" : "tmp/screenshots";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithChromium("the Metrics page in headless Chromium", () => {
  const jobs = {
    sendInvoice: (_args: [number]) => {},
    resizeImage: async ([ms]: [number]) => sleep(ms),
    chargeCard: {
      retry: false,
      perform: (args: [string]) => {
        throw new Error(`card ${args[0]} declined`);
      },
    },
  };
  const refused: string[] = [];
  const w = useDashboardServer({
    label: "dash-metrics",
    secret: SECRET,
    server: {
      jobs,
      queues: ["default", "media"],
      ordered: { syncAccount: { perform: async () => sleep(15) } },
      dashboard: dashboard(),
    },
    async seed({ tq }) {
      mkdirSync(SHOTS, { recursive: true });
      await tq.enqueueBulk([
        ...Array.from({ length: 20 }, (_, n) => ({ name: "sendInvoice" as const, args: [n] as [number] })),
        ...[5, 20, 40, 60].map((ms) => ({ name: "resizeImage" as const, args: [ms] as [number], queue: "media" })),
        { name: "chargeCard" as const, args: ["4242"] as [string] },
        { name: "chargeCard" as const, args: ["4000"] as [string] },
      ]);
      for (const id of ["acme", "globex"]) await tq.enqueueOrdered("syncAccount", { id, payload: { id } });
      await tq.tick({ budgetMs: 5_000 });
      await tq.enqueue("sendInvoice", [99], { queue: "media" }); // left waiting: a latency
    },
    onPage: (page) =>
      page.on("console", (m) => {
        if (/Content Security Policy|Refused/i.test(m.text())) refused.push(m.text());
      }),
  });

  const numberAt = async (selector: string, attribute: string) => {
    const value = await w.page.locator(selector).getAttribute(attribute);
    return value === "" || value === null ? null : Number(value);
  };

  it("shows per job name and per queue what metrics.query() reads for the same window", async () => {
    await w.page.click("header a:text-is('Operations')");
    await w.page.click("header a:text-is('Metrics')");
    await w.page.waitForURL(/\/dashboard\/metrics$/);
    const box = w.page.locator("#metrics");
    const window = {
      sinceMs: Number(await box.getAttribute("data-since")),
      untilMs: Number(await box.getAttribute("data-until")),
      stepMs: Number(await box.getAttribute("data-step")),
    };
    expect(window.untilMs - window.sinceMs).toBe(3 * 3600_000);
    const result = await w.tq.metrics.query(window);
    expect(result.jobs.map((s) => [s.name, s.total.runs, s.total.failures])).toEqual([
      ["chargeCard", 2, 2],
      ["resizeImage", 4, 0],
      ["sendInvoice", 20, 0],
      ["syncAccount", 2, 0],
    ]);
    // An ordered job's waits (due to start) have a table of their own.
    expect(result.ordered.map((o) => [o.name, o.total.waits])).toEqual([["syncAccount", 2]]);
    for (const o of result.ordered) {
      const row = `tr[data-ordered="${o.name}"]`;
      expect(await numberAt(`${row} [data-waits]`, "data-waits")).toBe(o.total.waits);
      expect(await numberAt(`${row} [data-wait-p50]`, "data-wait-p50")).toBe(o.total.p50);
      expect(await numberAt(`${row} [data-wait-p95]`, "data-wait-p95")).toBe(o.total.p95);
    }
    for (const s of result.jobs) {
      const at = `section[data-name="${s.name}"]`;
      expect(await numberAt(`${at} [data-runs]`, "data-runs")).toBe(s.total.runs);
      expect(await numberAt(`${at} [data-failures]`, "data-failures")).toBe(s.total.failures);
      for (const p of ["p50", "p95", "p99"] as const) {
        expect(await numberAt(`${at} [data-${p}]`, `data-${p}`), `${s.name} ${p}`).toBe(s.total[p]);
      }
      expect(await w.page.locator(`${at} svg`).count()).toBe(2);
      const bars = w.page.locator(`${at} svg >> nth=0 >> g`);
      expect(await bars.count()).toBeGreaterThanOrEqual(1);
    }
    // resizeImage slept 5–60 ms: its p95 is past 25 ms.
    expect(result.jobs.find((s) => s.name === "resizeImage")!.total.p95).toBeGreaterThan(25);
    for (const q of result.queues) {
      const row = `tr[data-queue="${q.queue}"]`;
      expect(await numberAt(`${row} [data-waits]`, "data-waits")).toBe(q.total.waits);
      expect(await numberAt(`${row} [data-wait-p50]`, "data-wait-p50")).toBe(q.total.p50);
      expect(await numberAt(`${row} [data-wait-p95]`, "data-wait-p95")).toBe(q.total.p95);
    }
    expect(result.queues.find((q) => q.queue === "default")!.total.waits).toBe(22);
    // The queue's latency is read when asked: the page's is a moment older than this query's.
    const latency = await numberAt('tr[data-queue="media"] [data-latency]', "data-latency");
    expect(latency).toBeGreaterThan(0);
    expect(latency).toBeLessThanOrEqual(result.queues.find((q) => q.queue === "media")!.latencyMs);
    expect(refused).toEqual([]);
    await w.page.screenshot({ path: `${SHOTS}/metrics.png`, fullPage: true });
  }, 60_000);

  it("switches the window and says when nothing ran in it", async () => {
    await w.page.click("a:text-is('1 h')");
    await w.page.waitForURL(/hours=1$/);
    const step = Number(await w.page.locator("#metrics").getAttribute("data-step"));
    expect(step).toBe(60_000);
    expect(await w.page.locator("section[data-name]").count()).toBe(4);
    await w.page.goto(`${w.server.url}/dashboard/metrics?hours=72`);
    expect(Number(await w.page.locator("#metrics").getAttribute("data-step"))).toBe(3_600_000);
    expect(refused).toEqual([]);
  }, 60_000);
});
