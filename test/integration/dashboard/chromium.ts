// A real headless Chromium for the dashboard's end-to-end test: Debian's
// `chromium` package, driven by playwright-core (no browser download).
// Where it is not installed the test is skipped with the reason printed;
// `.ci/run` installs it and sets TICKQ_REQUIRE_CHROMIUM=1, so CI fails
// rather than skip.
import { spawnSync } from "node:child_process";
import { chromium, type Browser, type Page } from "playwright-core";
import { describe } from "vitest";

/** CHROMIUM_PATH, else Debian's. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** The flags that work on a machine with no display, no sandbox and no network (NOTES.md). */
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

function chromiumMissing(): string | undefined {
  const probe = spawnSync(CHROMIUM, ["--version"], { encoding: "utf8", timeout: 60_000 });
  if (probe.error)
    return `${CHROMIUM} is not there (${probe.error.message}); apt-get install chromium, or set CHROMIUM_PATH`;
  if (probe.status !== 0) return `${CHROMIUM} --version failed (${probe.stderr.trim().split("\n")[0]})`;
  return undefined;
}

const missing = chromiumMissing();
if (missing !== undefined) {
  if (process.env.TICKQ_REQUIRE_CHROMIUM === "1")
    throw new Error(`The dashboard's browser test must run here (TICKQ_REQUIRE_CHROMIUM=1), but ${missing}`);
  console.warn(`Dashboard browser test skipped: ${missing}`);
}

/** Whether Chromium runs here (the reason it does not is printed above). */
export const hasChromium = missing === undefined;

/** describe(), skipped (the reason printed above) where Chromium is not installed. */
export function describeWithChromium(name: string, body: () => void): void {
  describe.skipIf(missing !== undefined)(name, body);
}

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });

/**
 * Logs `page` in to the dashboard at `dashboardUrl` (the server's URL and `/dashboard`) as an
 * operator does: the login form, the secret, then the overview. browser.test.ts tests the form itself.
 */
export async function logIn(page: Page, dashboardUrl: string, secret: string): Promise<void> {
  await page.goto(`${dashboardUrl}/login`);
  await page.fill("#secret", secret);
  await Promise.all([page.waitForURL(dashboardUrl), page.click("button")]);
}
