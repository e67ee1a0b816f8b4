// The dashboard's Cancel, end to end in headless Chromium (the Node server
// over the real Redis): a running job shows its progress in the In flight
// list and is cancelled from there (the confirm dialog first: dismissed,
// nothing happens; accepted, its handler's signal aborts and it ends
// cancelled); a queued job is cancelled from its page; both show as
// cancelled, on their pages and on the Cancelled page. The confirm runs
// under the dashboard's CSP (its script carries the nonce), so a dialog
// that never shows fails the test.
import { expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import type { JobContext, TickReport } from "../../../src/index.js";
import { describeWithChromium } from "./chromium.js";
import { useDashboardServer } from "./use-dashboard-server.js";

const SECRET = "cancel-dash-s3cret-for-tests";
const STEP_MS = 60_000;

describeWithChromium("the dashboard's Cancel in headless Chromium", () => {
  let abortedWith: unknown;
  const jobs = {
    longExport: (_args: [string], ctx: JobContext) =>
      new Promise((_, reject) => {
        ctx.progress({ done: 3, of: 10 });
        ctx.signal.addEventListener("abort", () => {
          abortedWith = ctx.signal.reason;
          reject(ctx.signal.reason);
        });
      }),
    sendMail: (_args: [string]) => {},
  };
  let running: string;
  let queued: string;
  let ticking: Promise<TickReport>;
  const w = useDashboardServer({
    label: "dash-cancel",
    secret: SECRET,
    server: { jobs, dashboard: dashboard({ refreshMs: 0 }) },
    context: { viewport: { width: 1100, height: 800 } },
    async seed({ tq }) {
      running = await tq.enqueue("longExport", ["2026"]);
      ticking = tq.tick({ budgetMs: 30_000, concurrency: 1, batch: 1, cancelCheckMs: 200 });
      for (let i = 0; i < 200 && (await tq.jobs.find(running))?.progress === undefined; i++)
        await new Promise((r) => setTimeout(r, 25));
      queued = await tq.enqueue("sendMail", ["a@example.com"], { delayMs: 3_600_000 });
    },
  });

  it(
    "shows a running job's progress, and cancels it once the confirm is accepted",
    async () => {
      const { page, tq, server } = w;
      await page.goto(`${server.url}/dashboard/running`);
      const row = page.locator(`tr[data-jid="${running}"]`);
      await expect(row.locator("[data-progress]").innerText()).resolves.toContain('"done":3');
      page.once("dialog", (dialog) => void dialog.dismiss());
      await row.locator("button:text('Cancel')").click();
      await expect((await tq.jobs.find(running))?.state).toBe("running");
      expect(abortedWith).toBeUndefined();

      let asked = "";
      page.once("dialog", (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      await Promise.all([page.waitForURL(/done=/), row.locator("button:text('Cancel')").click()]);
      expect(asked).toMatch(new RegExp(`Cancel job ${running}`));
      // "is being cancelled" once its tick heard, or "cancelled" if that tick already settled it
      await expect(page.locator("body").innerText()).resolves.toMatch(
        new RegExp(`Job ${running} (is being cancelled|cancelled)`),
      );
      expect((abortedWith as Error).name).toBe("TickqCancelled");
      expect((await ticking).cancelled).toBe(1);
    },
    STEP_MS,
  );

  it(
    "cancels a scheduled job from its page, and lists both on the Cancelled page",
    async () => {
      const { page, server } = w;
      await page.goto(`${server.url}/dashboard/jobs/${queued}`);
      page.once("dialog", (dialog) => void dialog.accept());
      await Promise.all([page.waitForURL(/done=/), page.click("button:text('Cancel')")]);
      await page.goto(`${server.url}/dashboard/jobs/${queued}`);
      await expect(page.locator('[data-state="cancelled"]').innerText()).resolves.toBe("cancelled");
      await expect(page.locator("dl").innerText()).resolves.toMatch(/cancelled while\s+scheduled/);
      await page.goto(`${server.url}/dashboard/jobs/${running}`);
      await expect(page.locator("dl").innerText()).resolves.toMatch(/cancelled while\s+running/);
      await page.click("header a:text-is('Jobs')");
      await page.click("header a:text-is('Cancelled')");
      await page.waitForURL(/\/dashboard\/cancelled$/);
      expect(await page.locator("tr[data-jid]").count()).toBe(2);
      expect(await page.locator("button:text('Cancel')").count()).toBe(0);
    },
    STEP_MS,
  );
});
