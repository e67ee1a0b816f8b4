// The run page's time axis in a real headless Chromium, over every adapter:
// each step a row, its spans placed by time — a step's try as it ran, then
// the wait for its next try; a sleep from where the code reached it to its
// end; a wait to its timeout — each titled with what it is, and the run's
// length at the axis' end.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { createApp } from "../../../src/http/app.js";
import { listen, type Listening } from "../../../src/platforms/node/listen.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { describeWithChromium, launchChromium } from "./chromium.js";

const SECRET = "workflow-timeline-s3cret";
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithChromium("the run page's time axis in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  describe.each(adapterCases)("over $name", (adapterCase) => {
    const h = useHarness(adapterCase, "dash-wf-timeline");
    let server: Listening | undefined;
    afterAll(async () => {
      await server?.close();
    });

    it("draws each step's try, next try, sleep and wait on one time axis", async () => {
      const tickq = h.make(
        {},
        {
          workflows: {
            shaky: {
              backoff: () => 3_600_000,
              run: async (_: null, step) => {
                await step.run("load", async () => (await pause(40), 1));
                await step.run("charge", (): number => {
                  throw new Error("card declined");
                });
              },
            },
            napper: {
              run: async (_: null, step) => {
                await step.run("load", async () => (await pause(40), 1));
                await step.sleep("nap", "1h");
              },
            },
            waiter: { run: async (_: null, step) => step.waitForEvent("paid", { event: "paid", timeout: "2h" }) },
          },
        },
      );
      server = await listen((request) =>
        createApp({ tickq, secrets: [SECRET], dashboard: dashboard() }).fetch(request),
      );
      for (const name of ["shaky", "napper", "waiter"] as const)
        await tickq.workflows.start(name, null, { id: `${name}-1` });
      for (let i = 0; i < 10; i++) {
        const runs = await Promise.all(["shaky-1", "napper-1", "waiter-1"].map((id) => tickq.workflows.get(id)));
        if (runs.every((r) => r?.steps.some((s) => s.status !== "completed"))) break;
        await tickq.tick({ budgetMs: 1_000 });
      }

      const page: Page = await browser.newPage();
      const box = async (selector: string) => {
        const b = await page.locator(selector).boundingBox();
        if (!b) throw new Error(`${selector} is not drawn`);
        return { left: b.x, right: b.x + b.width };
      };
      const row = (step: string) => `.tl-r:has(> span:text-is("${step}"))`;
      try {
        await page.goto(`${server.url}/dashboard/login`);
        await page.fill("#secret", SECRET);
        await Promise.all([page.waitForURL(`${server.url}/dashboard`), page.click("button")]);

        // A step that failed: its try, then the wait for its next try, an hour later: the axis' end.
        await page.goto(`${server.url}/dashboard/workflows/shaky-1`);
        expect(await page.locator(".tl .tl-r").count()).toBe(3); // two steps and the axis
        expect(await page.locator(`${row("load")} .tl-ran`).getAttribute("title")).toMatch(
          /^load: try 1, completed, \d+ ms$/,
        );
        expect(await page.locator(`${row("charge")} .tl-ran`).getAttribute("title")).toMatch(/^charge: try 1, failed/);
        expect(await page.locator(`${row("charge")} .tl-retry`).getAttribute("title")).toMatch(/^charge: try 2 in \d/);
        const track = await box(`${row("charge")} > i`);
        const retry = await box(`${row("charge")} .tl-retry`);
        expect(retry.right).toBeCloseTo(track.right, 0);
        expect(retry.left).toBeGreaterThanOrEqual((await box(`${row("load")} .tl-ran`)).left);
        expect(await page.locator(".tl-a em").last().innerText()).toMatch(/ s$/);

        // A sleep from where the code reached it (the end of load) to its end.
        await page.goto(`${server.url}/dashboard/workflows/napper-1`);
        expect(await page.locator(`${row("nap")} .tl-sleep`).getAttribute("title")).toMatch(/^nap: sleeps /);
        const load = await box(`${row("load")} .tl-ran`);
        const nap = await box(`${row("nap")} .tl-sleep`);
        // load's 40 ms is drawn at the least width a span gets (0.4 % of the axis): nap begins inside it.
        expect(nap.left).toBeGreaterThanOrEqual(load.left);
        expect(nap.left).toBeLessThanOrEqual(load.right);
        expect(nap.right).toBeCloseTo((await box(`${row("nap")} > i`)).right, 0);

        // A wait, with its event, to its timeout.
        await page.goto(`${server.url}/dashboard/workflows/waiter-1`);
        expect(await page.locator(`${row("paid")} .tl-wait`).getAttribute("title")).toMatch(
          /^paid: waits for paid, timeout in /,
        );
      } finally {
        await page.close();
      }
    }, 60_000);
  });
});
