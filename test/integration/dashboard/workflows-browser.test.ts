// The dashboard's Workflows pages in a real headless Chromium, over every
// adapter: the counts by status, a status's runs, a sleeping run's page with
// its Cancel button (a live run only: a completed one has none), the
// confirm dialog (the page's nonce'd script under the CSP) dismissed —
// nothing sent, the run still sleeps — then accepted: the run is cancelled
// through tq.workflows, and the page comes back saying so, without the button.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { createApp } from "../../../src/http/app.js";
import { listen, type Listening } from "../../../src/platforms/node/listen.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { describeWithChromium, launchChromium, logIn } from "./chromium.js";

const SECRET = "workflows-browser-s3cret";
const STEP_MS = 60_000;

describeWithChromium("the dashboard's Workflows pages in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  describe.each(adapterCases)("over $name", (adapterCase) => {
    const h = useHarness(adapterCase, "dash-wf-browser");
    let server: Listening | undefined;
    afterAll(async () => {
      await server?.close();
    });

    it(
      "lists runs by status and cancels a sleeping run after the confirm",
      async () => {
        const tickq = h.make(
          {},
          {
            workflows: {
              nap: {
                run: async (input: { user: string }, step) => {
                  await step.run("greet", () => `hi ${input.user}`);
                  await step.sleep("cool-off", "1h");
                  return step.run("after", () => "never");
                },
              },
              quick: { run: async () => "done" },
            },
          },
        );
        server = await listen((request) =>
          createApp({ tickq, secrets: [SECRET], dashboard: dashboard() }).fetch(request),
        );
        await tickq.workflows.start("nap", { user: "ann" }, { id: "nap-ann" });
        await tickq.workflows.start("quick", null, { id: "quick-1" });
        await tickq.tick({ budgetMs: 2_000 });
        expect((await tickq.workflows.get("nap-ann"))?.status).toBe("sleeping");

        const page: Page = await browser.newPage();
        try {
          await logIn(page, `${server.url}/dashboard`, SECRET);

          await page.goto(`${server.url}/dashboard/workflows`);
          const cells = (name: string) =>
            page.locator("table").first().locator(`tr:has(td:text-is("${name}")) td`).allInnerTexts();
          // workflow, running, sleeping, waiting, completed, failed, cancelled
          expect(await cells("nap")).toEqual(["nap", "0", "1", "0", "0", "0", "0"]);
          expect(await cells("quick")).toEqual(["quick", "0", "0", "0", "1", "0", "0"]);

          await Promise.all([page.waitForURL(/status=sleeping/), page.click("a:text-is('sleeping')")]);
          await Promise.all([page.waitForURL(/\/workflows\/nap-ann$/), page.click("a:text-is('nap-ann')")]);
          await expect(page.locator("dd").nth(1).innerText()).resolves.toBe("sleeping");
          expect(await page.locator("td:text-is('cool-off') + td").innerText()).toBe("sleeping");

          // Dismissed: the form is not sent.
          const asked: string[] = [];
          page.once("dialog", (d) => {
            asked.push(d.message());
            void d.dismiss();
          });
          await page.click("button:text('Cancel')");
          await expect.poll(() => asked.length).toBe(1);
          expect(asked[0]).toMatch(/^Cancel this run\?/);
          expect(new URL(page.url()).search).toBe("");
          expect((await tickq.workflows.get("nap-ann"))?.status).toBe("sleeping");

          // Accepted: cancelled, and the page says so.
          page.once("dialog", (d) => void d.accept());
          await Promise.all([page.waitForURL(/done=/), page.click("button:text('Cancel')")]);
          expect(new URL(page.url()).pathname).toBe("/dashboard/workflows/nap-ann");
          await expect(page.locator("[role=status]").innerText()).resolves.toBe(
            "Run nap-ann cancelled: no further step starts.",
          );
          await expect(page.locator("dd").nth(1).innerText()).resolves.toBe("cancelled");
          expect(await page.locator("button:text('Cancel')").count()).toBe(0);
          expect((await tickq.workflows.get("nap-ann"))?.status).toBe("cancelled");

          // A run that has ended offers no Cancel.
          await page.goto(`${server.url}/dashboard/workflows/quick-1`);
          await expect(page.locator("dd").nth(1).innerText()).resolves.toBe("completed");
          expect(await page.locator("button:text('Cancel')").count()).toBe(0);
        } finally {
          await page.close();
        }
      },
      STEP_MS,
    );
  });
});
