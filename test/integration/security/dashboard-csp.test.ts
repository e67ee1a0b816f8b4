// The dashboard's CSP allows no inline script: only the one script carrying
// the response's nonce runs. Checked in real Chromium: inline scripts and
// handlers slipped into a page (as an escaping bug would) do not run, while
// the dashboard's own script still asks before a delete and refreshes the
// overview.
import { expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { describeWithChromium } from "../dashboard/chromium.js";
import { useDashboardServer } from "../dashboard/use-dashboard-server.js";

const SECRET = "csp-browser-secret-0123456789";
const INJECTED = `<script>window.__ranInline = 1</script><img src="data:," onload="window.__ranHandler = 1"><svg onload="window.__ranSvg = 1"></svg>`;
const STEP_MS = 60_000;

describeWithChromium("the dashboard's CSP in headless Chromium", () => {
  const jobs = {
    fail: {
      retry: false,
      perform: () => {
        throw new Error("no");
      },
    },
    later: () => {},
  };
  const w = useDashboardServer({
    label: "dash-csp",
    secret: SECRET,
    server: { jobs, dashboard: dashboard({ refreshMs: 1_000 }) },
    async seed({ tq }) {
      await tq.enqueueBulk([
        { name: "fail", args: [] },
        { name: "fail", args: [] },
      ]);
      await tq.tick({ budgetMs: 5_000 });
    },
    // Every dashboard page arrives with markup an escaping bug could let in, its CSP header untouched.
    onPage: (page) =>
      page.route("**/dashboard**", async (route) => {
        if (route.request().method() !== "GET") return route.continue();
        const response = await route.fetch({ maxRedirects: 0 });
        const type = response.headers()["content-type"] ?? "";
        if (!type.includes("text/html")) return route.fulfill({ response });
        const body = (await response.text()).replace("<main>", `<main>${INJECTED}`);
        return route.fulfill({ response, body });
      }),
  });

  it(
    "sends a script-src of one nonce, no 'unsafe-inline', and no inline script or handler runs",
    async () => {
      const violations: string[] = [];
      w.page.on("console", (m) => void (m.type() === "error" && violations.push(m.text())));
      const response = await w.page.goto(`${w.server.url}/dashboard/dead`);
      expect(await w.page.locator("main img").count()).toBe(1); // the injected markup is on the page
      const ran = await w.page.evaluate(() => {
        const w = window as unknown as Record<string, unknown>;
        return [w.__ranInline, w.__ranHandler, w.__ranSvg];
      });
      expect(ran).toEqual([undefined, undefined, undefined]);
      expect(violations.some((v) => /Content Security Policy/.test(v))).toBe(true);
      const csp = response?.headers()["content-security-policy"] ?? "";
      expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9_-]{20,}';/);
      expect(csp.split(";").find((d) => d.trim().startsWith("script-src"))).not.toContain("unsafe-inline");
    },
    STEP_MS,
  );

  it(
    "still runs its own script: a delete asks first, and is not sent when dismissed",
    async () => {
      const [first] = (await w.tq.jobs.list("dead")).jobs;
      await w.page.goto(`${w.server.url}/dashboard/jobs/${first!.jid}`);
      const asked: string[] = [];
      w.page.once("dialog", (dialog) => {
        asked.push(dialog.message());
        void dialog.dismiss();
      });
      await w.page.click("button:text('Delete')");
      await w.page.waitForTimeout(300);
      expect(asked).toEqual(["Delete this job?"]);
      expect(new URL(w.page.url()).pathname).toBe(`/dashboard/jobs/${first!.jid}`);
      expect(await w.tq.jobs.find(first!.jid)).not.toBeNull();

      w.page.once("dialog", (dialog) => void dialog.accept());
      await Promise.all([w.page.waitForURL(/done=/), w.page.click("button:text('Delete')")]);
      expect(await w.tq.jobs.find(first!.jid)).toBeNull();
    },
    STEP_MS,
  );

  it(
    "still refreshes the overview, and pauses it",
    async () => {
      await w.page.goto(`${w.server.url}/dashboard`);
      const scheduled = async () => Number(await w.page.locator('[data-stat="scheduled"] b').innerText());
      const before = await scheduled();
      await w.tq.enqueue("later", [], { delayMs: 60_000 });
      await w.page.waitForFunction(
        (n) => document.querySelector('[data-stat="scheduled"] b')?.textContent === String(n),
        before + 1,
        { timeout: 15_000 },
      );
      await w.page.click("#pause");
      await expect(w.page.locator("#pause").getAttribute("aria-pressed")).resolves.toBe("true");
    },
    STEP_MS,
  );
});
