// The dashboard end to end in a real headless Chromium, served by the Node
// server over the real Redis: log in (a wrong secret first), the overview's
// counts against stats(), a dead job opened and retried and run by a tick,
// another deleted, a queue paused, a POST without the CSRF token refused,
// the overview refreshing itself and its pause. Takes the docs' screenshots
// as it goes: into tmp/screenshots/, or over the committed ones in
// docs/screenshots/ with TICKQ_UPDATE_SCREENSHOTS=1 (npm run docs:screenshots),
// so a test run leaves the working tree as it found it.
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { startServer, type RunningServer } from "../../../src/platforms/node/server.js";
import type { Tickq } from "../../../src/index.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";
import { describeWithChromium, launchChromium } from "./chromium.js";

const SECRET = "browser-s3cret-for-tests";
const SHOTS = process.env.TICKQ_UPDATE_SCREENSHOTS === "1" ? "docs/screenshots" : "tmp/screenshots";

describeWithChromium("the dashboard in headless Chromium", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("dash-browser");
  let declining = true;
  const jobs = {
    sendInvoice: (_args: [number]) => {},
    chargeCard: {
      retry: false,
      perform: (args: [string, number]) => {
        if (declining) throw new Error(`card ${args[0]} declined`);
      },
    },
    resizeImage: (_args: [string]) => {},
    /** Holds its tick until `release()`: a live tick to look at. */
    buildReport: async (_args: [string]) => {
      await held;
    },
  };
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let server: RunningServer;
  let tq: Tickq<typeof jobs>;
  let browser: Browser;
  let page: Page;
  let dead: string[];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer({
      redisUrl: redisUrl(),
      jobs,
      prefix,
      port: 0,
      secret: SECRET,
      tickEveryMs: 0,
      queues: ["default", "mail", "media"],
      dashboard: dashboard({ refreshMs: 1_000 }),
    });
    tq = server.tickq as unknown as Tickq<typeof jobs>;
    dead = await tq.enqueueBulk([
      { name: "chargeCard", args: ["4242", 1200] },
      { name: "chargeCard", args: ["4000", 990] },
      { name: "chargeCard", args: ["5555", 450] },
    ]);
    await tq.enqueueBulk(
      Array.from({ length: 12 }, (_, n) => ({ name: "sendInvoice" as const, args: [n] as [number] })),
    );
    await tq.tick({ budgetMs: 5_000 });
    await tq.enqueueBulk(
      Array.from({ length: 7 }, (_, n) => ({
        name: "sendInvoice" as const,
        args: [100 + n] as [number],
        queue: "mail",
      })),
    );
    await tq.enqueueBulk(
      Array.from({ length: 4 }, (_, n) => ({
        name: "resizeImage" as const,
        args: [`img-${n}.png`] as [string],
        queue: "media",
        delayMs: 3_600_000 * (n + 1),
      })),
    );
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  const statOnPage = async (label: string) =>
    Number((await page.locator(`[data-stat="${label}"] b`).innerText()).replace(/,/g, ""));

  // Each step waits on a real browser: wide margins on a loaded machine.
  const STEP_MS = 60_000;

  it(
    "refuses a wrong secret, then logs in and shows the counts stats() reads",
    async () => {
      await page.goto(`${server.url}/dashboard`);
      expect(new URL(page.url()).pathname).toBe("/dashboard/login");
      await page.screenshot({ path: `${SHOTS}/login.png` });
      await page.fill("#secret", "not-the-secret");
      const refused = page.waitForResponse(
        (r) => r.url().endsWith("/dashboard/login") && r.request().method() === "POST",
      );
      await page.click("button");
      expect((await refused).status()).toBe(401);
      await expect(page.locator("[role=alert]").innerText()).resolves.toBe("Wrong secret.");

      await page.fill("#secret", SECRET);
      await Promise.all([page.waitForURL(`${server.url}/dashboard`), page.click("button")]);
      const cookies = await page.context().cookies();
      expect(cookies.find((c) => c.name === "tickq_session")).toMatchObject({
        httpOnly: true,
        sameSite: "Strict",
        path: "/dashboard",
      });

      const stats = await tq.stats();
      expect(stats).toMatchObject({ processed: 15, failed: 3, dead: 3, scheduled: 4 });
      const keys = { "in flight": "inflight", "fetched, waiting": "fetchedWaiting" } as const;
      for (const label of [
        "processed",
        "failed",
        "dead",
        "scheduled",
        "retry",
        "in flight",
        "running",
        "fetched, waiting",
      ] as const) {
        const key = label === "in flight" || label === "fetched, waiting" ? keys[label] : label;
        expect(await statOnPage(label), label).toBe(stats[key]);
      }
      expect(await statOnPage("waiting")).toBe(7);
      await page.screenshot({ path: `${SHOTS}/overview.png`, fullPage: true });
    },
    STEP_MS,
  );

  it(
    "opens a dead job, retries it, and a tick runs it",
    async () => {
      await page.click("header a:text-is('Jobs')");
      await page.click("header a:text-is('Dead')");
      await page.waitForURL(/\/dashboard\/dead$/);
      expect(await page.locator("tr[data-jid]").count()).toBe(3);
      await page.screenshot({ path: `${SHOTS}/dead.png`, fullPage: true });
      await Promise.all([
        page.waitForURL(new RegExp(`/dashboard/jobs/${dead[0]}$`)),
        page.click(`a[href="/dashboard/jobs/${dead[0]}"]`),
      ]);
      await expect(page.locator(".err").first().innerText()).resolves.toBe("Error: card 4242 declined");
      await expect(page.locator("pre.backtrace").innerText()).resolves.toContain("browser.test.ts");
      await page.screenshot({ path: `${SHOTS}/job.png`, fullPage: true });

      await Promise.all([page.waitForURL(/done=/), page.click("button:text('Retry now')")]);
      await expect(page.locator("[role=status]").innerText()).resolves.toContain(
        `Job ${dead[0]} is back in queue default`,
      );
      await expect(page.locator("[data-state]").innerText()).resolves.toBe("queued");
      declining = false;
      const report = await tq.tick({ budgetMs: 5_000 });
      expect(report.succeeded).toBeGreaterThanOrEqual(1);
      const gone = await page.goto(`${server.url}/dashboard/jobs/${dead[0]}`);
      expect(gone?.status()).toBe(404);
      expect(await page.locator("[role=alert]").innerText()).toContain("it ran and succeeded");
    },
    STEP_MS,
  );

  it(
    "deletes another dead job from the list",
    async () => {
      await page.goto(`${server.url}/dashboard/dead`);
      await Promise.all([page.waitForURL(/done=/), page.click(`tr[data-jid="${dead[1]}"] button:text('Delete')`)]);
      expect(await page.locator("tr[data-jid]").count()).toBe(1);
      expect(await tq.jobs.find(dead[1]!)).toBeNull();
      expect((await tq.jobs.find(dead[2]!))?.state).toBe("dead");
    },
    STEP_MS,
  );

  it(
    "pauses a queue",
    async () => {
      await page.goto(`${server.url}/dashboard/queues`);
      await Promise.all([page.waitForURL(/done=/), page.click("tr:has(a:text-is('mail')) button:text('Pause')")]);
      expect((await tq.queues.list()).find((q) => q.name === "mail")?.paused).toBe(true);
      // a tick now leaves the queue's jobs where they are
      await tq.enqueue("sendInvoice", [7], { queue: "mail" });
      await tq.tick({ budgetMs: 5_000 });
      expect((await tq.queues.list()).find((q) => q.name === "mail")).toMatchObject({ paused: true, size: 1 });
      await expect(page.locator("tr:has(a:text-is('mail')) button").innerText()).resolves.toBe("Resume");
      // Its latency: how long its one job has waited, as queues.list() reads it around the page's load.
      const before = (await tq.queues.list()).find((q) => q.name === "mail")!.latencyMs;
      await page.reload();
      const shown = Number(await page.locator("tr[data-queue=mail] [data-ms]").getAttribute("data-ms"));
      const after = (await tq.queues.list()).find((q) => q.name === "mail")!.latencyMs;
      expect(shown).toBeGreaterThanOrEqual(before);
      expect(shown).toBeLessThanOrEqual(after);
      await page.screenshot({ path: `${SHOTS}/queues.png`, fullPage: true });
    },
    STEP_MS,
  );

  it(
    "shows a live tick with its lease, and the job it holds in flight",
    async () => {
      const jid = await tq.enqueue("buildReport", ["2026-Q4"]);
      // A short lease: its extensions, every second, report the job running.
      const tick = tq.tick({ budgetMs: 20_000, leaseMs: 3_000 });
      try {
        await page.goto(`${server.url}/dashboard/running`);
        // the tick fetches it within a moment: reload until it shows
        for (let i = 0; i < 100 && (await page.locator(`tr[data-jid="${jid}"]`).count()) === 0; i++)
          await page.reload();
        await expect(page.locator(`tr[data-jid="${jid}"] td:nth-child(3)`).innerText()).resolves.toBe("buildReport");
        // Its page: the attempt, its tick's start (the job started after it) and lease, as tq.ticks() reads them.
        await page.goto(`${server.url}/dashboard/jobs/${jid}`);
        const [live] = await tq.ticks();
        await expect(page.locator("[data-attempt]").innerText()).resolves.toBe("1");
        expect(await page.locator("[data-started] time").getAttribute("datetime")).toBe(
          new Date(live!.startedAt).toISOString(),
        );
        await expect(page.locator("[data-deadline]").innerText()).resolves.toContain("its tick's lease");
        await page.screenshot({ path: `${SHOTS}/running-job.png`, fullPage: true });
        // The overview counts it running once the tick reported it (its lease extensions carry the count).
        await page.goto(`${server.url}/dashboard`);
        for (let i = 0; i < 100 && (await statOnPage("running")) !== 1; i++) {
          await page.waitForTimeout(100);
          await page.reload();
        }
        const stats = await tq.stats();
        expect([await statOnPage("running"), await statOnPage("fetched, waiting")]).toEqual([
          stats.running,
          stats.fetchedWaiting,
        ]);
        expect(stats.running).toBe(1);
        await page.goto(`${server.url}/dashboard/ticks`);
        const row = page.locator("table tr").nth(1);
        await expect(row.locator("td:nth-child(5)").innerText()).resolves.toBe("default, mail, media");
        expect(await row.locator("td:nth-child(4)").innerText()).toMatch(/^[\d,]+ ms$/);
        await page.screenshot({ path: `${SHOTS}/ticks.png`, fullPage: true });
      } finally {
        release();
        await tick;
      }
    },
    STEP_MS,
  );

  it(
    "refuses a POST without the CSRF token, even with the session cookie (403)",
    async () => {
      const status = await page.evaluate(
        async () =>
          (
            await fetch("/dashboard/queues/mail/resume", {
              method: "POST",
              body: new URLSearchParams({ back: "/dashboard" }),
            })
          ).status,
      );
      expect(status).toBe(403);
      expect((await tq.queues.list()).find((q) => q.name === "mail")?.paused).toBe(true);
    },
    STEP_MS,
  );

  it(
    "refreshes the overview by itself until paused, and fits a phone",
    async () => {
      await page.goto(`${server.url}/dashboard`);
      const before = await statOnPage("scheduled");
      await tq.enqueue("resizeImage", ["late.png"], { queue: "media", delayMs: 60_000 });
      await page.waitForFunction(
        (n) => document.querySelector('[data-stat="scheduled"] b')?.textContent === String(n),
        before + 1,
        { timeout: 15_000 },
      );
      await page.click("#pause");
      await expect(page.locator("#pause").getAttribute("aria-pressed")).resolves.toBe("true");
      await expect(page.evaluate(() => localStorage.getItem("tickq-refresh"))).resolves.toBe("off");
      await page.click("#pause");

      const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
      await phone.context().addCookies(await page.context().cookies());
      await phone.goto(`${server.url}/dashboard`);
      // nothing wider than the screen but the tables' own scrolling boxes
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await phone.screenshot({ path: `${SHOTS}/overview-phone.png`, fullPage: true });
      await phone.close();
    },
    STEP_MS,
  );

  it(
    "the dead jobs' table fits a phone: the error readable, Retry on the screen",
    async () => {
      const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
      await phone.context().addCookies(await page.context().cookies());
      await phone.goto(`${server.url}/dashboard/dead`);
      const row = phone.locator(`tr[data-jid="${dead[2]}"]`);
      const error = await row.locator("td.err").boundingBox();
      const retry = await row.locator("button:text('Retry')").boundingBox();
      expect(error!.width).toBeGreaterThanOrEqual(300);
      expect(retry!.x).toBeGreaterThanOrEqual(0);
      expect(retry!.x + retry!.width).toBeLessThanOrEqual(390);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await phone.screenshot({ path: `${SHOTS}/dead-phone.png`, fullPage: true });
      await phone.close();
    },
    STEP_MS,
  );
});
