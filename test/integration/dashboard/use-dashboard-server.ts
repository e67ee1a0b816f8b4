// The world of a dashboard browser test: the Node server over the real Redis
// (its own prefix, a secret, no tick timer: the test ticks), its tickq, a
// headless Chromium with one page logged in to the dashboard; all closed and
// the prefix cleaned up after the suite. Call it inside describeWithChromium.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import type { Tickq } from "../../../src/index.js";
import type { JobRegistry } from "../../../src/job/definition.js";
import type { ServerOptions } from "../../../src/platforms/node/server-options.js";
import { startServer, type RunningServer } from "../../../src/platforms/node/server.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";
import { launchChromium, logIn } from "./chromium.js";

export interface DashboardWorld<J extends JobRegistry> {
  server: RunningServer;
  tq: Tickq<J>;
  browser: Browser;
  context: BrowserContext;
  /** Logged in, on the overview. */
  page: Page;
  prefix: string;
  /** The server's URL and `/dashboard`. */
  dashboardUrl: string;
}

export interface DashboardWorldOptions<J extends JobRegistry> {
  label: string;
  secret: string;
  /** The server's options but its Redis, prefix, port, secret and tick timer. */
  server: Omit<ServerOptions, "redisUrl" | "prefix" | "port" | "secret" | "tickEveryMs"> & { jobs: J };
  /** The browser context's options (viewport, time zone, locale). */
  context?: BrowserContextOptions;
  /** What the suite stores before the browser opens. */
  seed?: (world: DashboardWorld<J>) => Promise<void>;
  /** Before logging in: the page's size, listeners (dialogs, console, refused requests). */
  onPage?: (page: Page) => unknown;
}

export function useDashboardServer<J extends JobRegistry>(o: DashboardWorldOptions<J>): DashboardWorld<J> {
  const redis = directRedis();
  const world = { prefix: uniquePrefix(o.label) } as DashboardWorld<J>;
  beforeAll(async () => {
    world.server = await startServer({
      ...o.server,
      redisUrl: redisUrl(),
      prefix: world.prefix,
      port: 0,
      secret: o.secret,
      tickEveryMs: 0,
    } as ServerOptions);
    world.tq = world.server.tickq as unknown as Tickq<J>;
    world.dashboardUrl = `${world.server.url}/dashboard`;
    await o.seed?.(world);
    world.browser = await launchChromium();
    world.context = await world.browser.newContext(o.context ?? { viewport: { width: 1280, height: 800 } });
    world.page = await world.context.newPage();
    await o.onPage?.(world.page);
    await logIn(world.page, world.dashboardUrl, o.secret);
  }, 60_000);
  afterAll(async () => {
    await world.browser?.close();
    await world.server?.close();
    await deleteUnder(redis, world.prefix);
    redis.disconnect();
  });
  return world;
}
