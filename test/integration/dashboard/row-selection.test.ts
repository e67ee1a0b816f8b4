// Rows ticked on a jobs page, then one button for all of them, in a real
// headless Chromium over the Node server and the real Redis: two of three
// dead jobs retried (the third stays dead), scheduled jobs cancelled and
// deleted by selection, the confirm asked first, and a job that cannot take
// the action (it moved meanwhile) named in the notice while the others go on.
import { expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { describeWithChromium } from "./chromium.js";
import { useDashboardServer } from "./use-dashboard-server.js";

const SECRET = "selection-s3cret-for-tests";
const STEP_MS = 60_000;

describeWithChromium("row selection on the jobs pages, in headless Chromium", () => {
  const jobs = {
    charge: {
      retry: false,
      perform: (_args: [number]) => {
        throw new Error("declined");
      },
    },
    later: (_args: [number]) => {},
  };
  let dead: string[];
  let scheduled: string[];
  const w = useDashboardServer({
    label: "dash-select",
    secret: SECRET,
    server: { jobs, dashboard: dashboard() },
    async seed({ tq }) {
      dead = await tq.enqueueBulk([1, 2, 3].map((n) => ({ name: "charge" as const, args: [n] as [number] })));
      await tq.tick({ budgetMs: 5_000 });
      scheduled = await tq.enqueueBulk(
        [1, 2, 3, 4].map((n) => ({ name: "later" as const, args: [n] as [number], delayMs: 3_600_000 })),
      );
    },
    onPage: (page) => page.on("dialog", (d) => void d.accept()),
  });

  const tick = (jid: string) => w.page.check(`tr[data-jid="${jid}"] input[type=checkbox]`);

  it(
    "retries the dead jobs ticked and leaves the other dead",
    async () => {
      await w.page.goto(`${w.server.url}/dashboard/dead`);
      await tick(dead[0]!);
      await tick(dead[2]!);
      await Promise.all([w.page.waitForURL(/done=/), w.page.click("button:text('Retry selected')")]);
      await expect(w.page.locator("[role=status]").innerText()).resolves.toBe("2 job(s): retried.");
      expect(await Promise.all(dead.map(async (jid) => (await w.tq.jobs.find(jid))?.state))).toEqual([
        "queued",
        "dead",
        "queued",
      ]);
      expect(await w.page.locator("tr[data-jid]").count()).toBe(1);
    },
    STEP_MS,
  );

  it(
    "cancels, then deletes, the scheduled jobs ticked, and names one that moved meanwhile",
    async () => {
      await w.page.goto(`${w.server.url}/dashboard/scheduled`);
      expect(await w.page.locator("#sel button").allInnerTexts()).toEqual([
        "Retry selected",
        "Cancel selected",
        "Delete selected",
      ]);
      await tick(scheduled[0]!);
      await tick(scheduled[1]!);
      await Promise.all([w.page.waitForURL(/done=/), w.page.click("button:text('Cancel selected')")]);
      await expect(w.page.locator("[role=status]").innerText()).resolves.toBe("2 job(s): cancelled.");
      expect((await w.tq.jobs.find(scheduled[0]!))?.state).toBe("cancelled");

      await tick(scheduled[2]!);
      await tick(scheduled[3]!);
      await w.tq.jobs.delete(scheduled[3]!); // gone before the button is pressed
      await Promise.all([w.page.waitForURL(/done=/), w.page.click("button:text('Delete selected')")]);
      const notice = await w.page.locator("[role=status]").innerText();
      expect(notice).toMatch(new RegExp(`^1 job\\(s\\): deleted; 1 could not be \\(${scheduled[3]}: `));
      expect(await w.tq.jobs.find(scheduled[2]!)).toBeNull();
      expect((await w.tq.jobs.list("scheduled", { limit: 25 })).jobs).toEqual([]);
    },
    STEP_MS,
  );
});
