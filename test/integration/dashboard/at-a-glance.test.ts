// The dashboard as an operator meets it, in a real headless Chromium over the
// Node server and the real Redis: the menu in three groups on one row at
// 1024 px with "Log out" unwrapped, and a menu button on a 390 px phone; every
// time in the browser's zone with "… ago", UTC on hover, job and workflow
// pages alike; the overview's throughput per minute equal to metrics.query()
// for the window it states, every declared queue (one with no job yet too)
// with its waiting and latency as stats() reads them, the workflow counts and
// the warnings panel.
import { mkdirSync } from "node:fs";
import { expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { GROUPS } from "../../../src/dashboard/sections.js";
import { describeWithChromium } from "./chromium.js";
import { useDashboardServer } from "./use-dashboard-server.js";

const SECRET = "glance-s3cret-for-tests";
const SHOTS = process.env.TICKQ_UPDATE_SCREENSHOTS === "1" ? "docs/screenshots" : "tmp/screenshots";
const STEP_MS = 60_000;

describeWithChromium("the dashboard at a glance, in headless Chromium", () => {
  const jobs = {
    sendInvoice: (_args: [number]) => ({ sent: true }),
    chargeCard: {
      retry: false,
      perform: (args: [string]) => {
        throw new Error(`card ${args[0]} declined`);
      },
    },
  };
  const w = useDashboardServer({
    label: "dash-glance",
    secret: SECRET,
    server: {
      jobs,
      queues: ["critical", "default", "mail"],
      keepCompleted: { count: 100 },
      schedules: {
        nightly: { cron: "0 9 * * *", timezone: "Europe/Berlin", job: "sendInvoice", args: [0] },
        often: { every: 300_000, job: "sendInvoice", args: [1] },
      },
      workflows: {
        nap: {
          run: async (_input: null, step) => {
            await step.run("greet", () => "hi");
            await step.sleep("cool-off", "1h");
          },
        },
      },
      dashboard: dashboard({ refreshMs: 60_000 }),
    },
    context: { timezoneId: "Europe/Berlin", locale: "en-US" },
    async seed({ tq }) {
      mkdirSync(SHOTS, { recursive: true });
      await tq.enqueueBulk([
        ...Array.from({ length: 9 }, (_, n) => ({ name: "sendInvoice" as const, args: [n] as [number] })),
        { name: "chargeCard" as const, args: ["4242"] as [string] },
      ]);
      await tq.workflows.start("nap", null, { id: "nap-1" });
      await tq.tick({ budgetMs: 5_000 });
      await tq.enqueueBulk(
        Array.from({ length: 3 }, (_, n) => ({ name: "sendInvoice" as const, args: [n] as [number], queue: "mail" })),
      );
    },
    onPage: (page) => page.setViewportSize({ width: 1024, height: 800 }),
  });

  it(
    "groups the menu on one row at 1024 px, the current group's pages below it, Log out unwrapped",
    async () => {
      await w.page.goto(`${w.server.url}/dashboard/dead`);
      const header = (await w.page.locator("header").boundingBox())!;
      const groups = await w.page.locator("nav > .g > a").allInnerTexts();
      expect(groups).toEqual(["Overview", "Jobs", "Workflows", "Operations"]);
      for (const item of ["header > b", "nav > .g > a >> nth=0", "nav > .g > a >> nth=3", "header button"]) {
        const box = (await w.page.locator(item).boundingBox())!;
        expect(box.y, item).toBeGreaterThanOrEqual(header.y);
        expect(box.y + box.height, item).toBeLessThanOrEqual(header.y + header.height);
      }
      // "Log out" on one line: its button is no taller than a one-word one
      const logout = (await w.page.locator("header button").boundingBox())!;
      const one = await w.page.locator("header button").evaluate((b) => b.getClientRects().length);
      expect(one).toBe(1);
      expect(logout.height).toBeLessThan(header.height);
      // the Jobs pages are visible in their own row, Dead marked
      await expect(w.page.locator(".g.on > div a.on").innerText()).resolves.toBe("Dead");
      expect(await w.page.locator(".g.on > div a").count()).toBe(9);
      expect(await w.page.locator("a:text-is('Metrics')").isVisible()).toBe(false);
      await w.page.click("header a:text-is('Operations')");
      await w.page.click("header a:text-is('Ticks')");
      await w.page.waitForURL(/\/dashboard\/ticks$/);
      expect(await w.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
    },
    STEP_MS,
  );

  it(
    "opens the menu with a button on a 390 px phone and goes to any page from it",
    async () => {
      const phone = await w.context.newPage();
      await phone.setViewportSize({ width: 390, height: 844 });
      await phone.goto(`${w.server.url}/dashboard`);
      expect(await phone.locator("nav").isVisible()).toBe(false);
      const logout = (await phone.locator("header button").boundingBox())!;
      expect(logout.x + logout.width).toBeLessThanOrEqual(390);
      await phone.click("label.menu");
      expect(await phone.locator("nav").isVisible()).toBe(true);
      await phone.screenshot({ path: `${SHOTS}/menu-phone.png` });
      await Promise.all([phone.waitForURL(/\/dashboard\/dead$/), phone.click("nav a:text-is('Dead')")]);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await phone.close();
    },
    STEP_MS,
  );

  it(
    "shows every time in the browser's zone with how long ago, and UTC on hover, on job and workflow pages",
    async () => {
      const local = new Intl.DateTimeFormat("en-US", {
        dateStyle: "medium",
        timeStyle: "medium",
        timeZone: "Europe/Berlin",
      });
      const [dead] = (await w.tq.jobs.list("dead", { limit: 1 })).jobs;
      for (const path of [`/jobs/${dead!.jid}`, "/workflows/nap-1", "/dashboard"].map((p) =>
        p.startsWith("/dashboard") ? p : `/dashboard${p}`,
      )) {
        await w.page.goto(`${w.server.url}${path}`);
        const times = w.page.locator("time[datetime]");
        expect(await times.count(), path).toBeGreaterThan(0);
        for (const time of await times.all()) {
          const iso = (await time.getAttribute("datetime"))!;
          expect(await time.innerText(), path).toBe(local.format(new Date(iso)));
          expect(await time.getAttribute("title")).toBe(`${iso.slice(0, 19).replace("T", " ")} UTC`);
          expect(await time.evaluate((t) => t.nextElementSibling?.textContent ?? "")).toMatch(
            /^(\d+ (s|min|h|d) ago|in \d+ (s|min|h|d))$/,
          );
        }
      }
    },
    STEP_MS,
  );

  it(
    "shows on the overview the throughput metrics.query() reads, every declared queue as stats() reads it, workflow counts and warnings",
    async () => {
      const before = await w.tq.stats();
      await w.page.goto(`${w.server.url}/dashboard`);
      const after = await w.tq.stats();
      const box = w.page.locator("#throughput");
      const window = {
        sinceMs: Number(await box.getAttribute("data-since")),
        untilMs: Number(await box.getAttribute("data-until")),
        stepMs: Number(await box.getAttribute("data-step")),
      };
      expect([window.untilMs - window.sinceMs, window.stepMs]).toEqual([3_600_000, 60_000]);
      const result = await w.tq.metrics.query(window);
      const runs = result.jobs.reduce((n, s) => n + s.total.runs, 0);
      const failures = result.jobs.reduce((n, s) => n + s.total.failures, 0);
      expect([runs, failures]).toEqual([10, 1]);
      expect(Number(await box.getAttribute("data-runs"))).toBe(runs);
      expect(Number(await box.getAttribute("data-failures"))).toBe(failures);
      expect(await w.page.locator("#live svg g").count()).toBeGreaterThanOrEqual(1);

      // every declared queue, critical with no job ever sent to it too
      expect(
        await w.page
          .locator("#live tr[data-queue]")
          .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-queue"))),
      ).toEqual(["critical", "default", "mail"]);
      for (const queue of ["critical", "default", "mail"]) {
        const row = w.page.locator(`#live tr[data-queue="${queue}"]`);
        expect(Number(await row.locator("[data-waiting]").innerText())).toBe(after.queues[queue]);
        const shown = Number(await row.locator("[data-ms]").getAttribute("data-ms"));
        expect(shown).toBeGreaterThanOrEqual(before.latency[queue]!);
        expect(shown).toBeLessThanOrEqual(after.latency[queue]!);
      }
      expect(after.queues.mail).toBe(3);
      expect(after.latency.mail).toBeGreaterThan(0);

      expect(Number(await w.page.locator('[data-runs="sleeping"] b').innerText())).toBe(after.workflows.nap!.sleeping);
      expect(after.workflows.nap!.sleeping).toBe(1);
      expect(await w.page.locator("#warnings [role=alert]").count()).toBe(after.warnings.length);
      if (after.warnings.length === 0) await expect(w.page.locator("#warnings").innerText()).resolves.toContain("None");
    },
    STEP_MS,
  );

  it(
    "says each schedule's spec in words with its next runs as tq.schedules() reads them, runs one now and pauses it",
    async () => {
      await w.page.goto(`${w.server.url}/dashboard/schedules`);
      const listed = await w.tq.schedules();
      await expect(w.page.locator('tr[data-schedule="nightly"] [data-spec]').innerText()).resolves.toBe(
        "every day at 09:00 Europe/Berlin",
      );
      await expect(w.page.locator('tr[data-schedule="often"] [data-spec]').innerText()).resolves.toBe("every 5 min");
      for (const s of listed) {
        const shown = await w.page
          .locator(`tr[data-schedule="${s.name}"] [data-next] time`)
          .evaluateAll((ts) => ts.map((t) => t.getAttribute("datetime")));
        expect(shown).toEqual(s.nextRuns.map((d) => d.toISOString()));
        expect(shown).toHaveLength(3);
      }
      w.page.once("dialog", (d) => void d.accept());
      await Promise.all([
        w.page.waitForURL(/done=/),
        w.page.click('tr[data-schedule="nightly"] button:text("Run now")'),
      ]);
      const jid = /job (\S+)\.$/.exec(await w.page.locator("[role=status]").innerText())![1]!;
      expect(await w.tq.jobs.find(jid)).toMatchObject({ state: "queued", name: "sendInvoice", job: { args: [0] } });
      await Promise.all([w.page.waitForURL(/done=/), w.page.click('tr[data-schedule="often"] button:text("Pause")')]);
      expect((await w.tq.schedules()).find((s) => s.name === "often")!.paused).toBe(true);
      await expect(w.page.locator('tr[data-schedule="often"] .tag').innerText()).resolves.toBe("paused");
      await Promise.all([w.page.waitForURL(/done=/), w.page.click('tr[data-schedule="often"] button:text("Resume")')]);
      expect((await w.tq.schedules()).find((s) => s.name === "often")!.paused).toBe(false);
    },
    STEP_MS,
  );

  it(
    "takes the docs' screenshots of each page at 1280 px and on a 390 px phone",
    async () => {
      await w.tq.tick({ budgetMs: 5_000 }); // a recent tick, succeeded jobs with results
      const wide = await w.context.newPage();
      await wide.setViewportSize({ width: 1280, height: 800 });
      const phone = await w.context.newPage();
      await phone.setViewportSize({ width: 390, height: 844 });
      await w.tq.enqueue("sendInvoice", [42], { delayMs: 3_600_000 }); // one on the Scheduled page
      await phone.goto(`${w.server.url}/dashboard/dead`);
      const deadJob = (await phone.locator('a[href*="/jobs/"]').first().getAttribute("href"))!;
      // [screenshot, path, at 1280 px too]: browser.test.ts and metrics-w.page.test.ts take the others at 1280 px.
      const pages: [string, string, boolean][] = [
        ["succeeded", "/succeeded", true],
        ["schedules", "/schedules", true],
        ["workflows", "/workflows", true],
        ["workflow-run", "/workflows/nap-1", true],
        ["running", "/running", true],
        ["scheduled", "/scheduled", true],
        ["retry", "/retry", true],
        ["cancelled", "/cancelled", true],
        ["expired", "/expired", true],
        ["ordered", "/ordered", true],
        ["locks", "/locks", true],
        ["queues", "/queues", false],
        ["ticks", "/ticks", false],
        ["metrics", "/metrics", false],
        ["job", deadJob.slice(deadJob.indexOf("/jobs/")), false],
      ];
      const everyPage = GROUPS.flatMap((g) => g.pages.map((p) => p.path as string));
      for (const path of everyPage.filter((p) => !["", "/dead"].includes(p))) {
        expect(
          pages.map(([, p]) => p),
          `a screenshot of ${path}`,
        ).toContain(path); // overview, dead: browser.test.ts
      }
      for (const [name, path, both] of pages) {
        if (both) {
          await wide.goto(`${w.server.url}/dashboard${path}`);
          await wide.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
        }
        await phone.goto(`${w.server.url}/dashboard${path}`);
        expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
        await phone.screenshot({ path: `${SHOTS}/${name}-phone.png`, fullPage: true });
      }
      await wide.close();
      await phone.close();
    },
    STEP_MS,
  );
});
