// tickq/netlify's two functions called as Netlify calls them: `fetch` with a Request and a whole
// `Context` typed by @netlify/functions (no cast: a field tickq reads that Netlify does not give fails
// the type check), and `scheduled` as a scheduled function's default export. Redis over HTTP (the
// local REST server), from the variables a site sets.
import type { Config, Context } from "@netlify/functions";
import { afterAll, describe, expect, inject, it, vi } from "vitest";
import { tickqNetlify } from "../../../src/platforms/netlify/index.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

const SECRET = "netlify-test-secret-0123";

/** Netlify's function Context, every field as the platform gives it; kept work lands in `pending`. */
function netlifyContext(pending: Promise<unknown>[]): Context {
  return {
    account: { id: "account-1" },
    cookies: { delete: () => {}, get: () => "", set: () => {} },
    deploy: { context: "production", id: "deploy-1", published: true },
    geo: { city: "Lisbon", country: { code: "PT", name: "Portugal" } },
    ip: "203.0.113.9",
    json: (input: unknown) => Response.json(input),
    log: () => {},
    next: async () => new Response(null, { status: 404 }),
    params: {},
    rewrite: async () => new Response(null, { status: 404 }),
    requestId: "01JABCDEF",
    server: { region: "us-east-2" },
    site: { id: "site-1", name: "tickq-example", url: "https://tickq-example.netlify.app" },
    url: new URL("https://tickq-example.netlify.app/api/signup"),
    waitUntil: (promise: Promise<unknown>) => void pending.push(promise),
  };
}

describe("tickq/netlify", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("netlify");
  const sent: string[] = [];
  const site = tickqNetlify({
    env: {
      UPSTASH_REDIS_REST_URL: inject("restUrl"),
      UPSTASH_REDIS_REST_TOKEN: inject("restToken"),
      TICKQ_SECRET: SECRET,
      TICKQ_PREFIX: prefix,
    },
    jobs: { sendWelcomeEmail: ([to]: [string]) => void sent.push(to) },
    routes: (app) => {
      app.post("/signup", async (c) => {
        const { email } = (await c.req.json()) as { email: string };
        return c.json({ jid: await c.var.tq.enqueue("sendWelcomeEmail", [email], { kick: true }) }, 201);
      });
    },
  });
  // What a function file exports: Netlify's handler signature and its Config, checked by tsc.
  const appFunction: (request: Request, context: Context) => Response | Promise<Response> = site.fetch;
  const tickFunction: (request: Request, context: Context) => Promise<Response> = site.scheduled;
  const tickConfig: Config = { schedule: "* * * * *" };
  afterAll(async () => {
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("answers a request under /api with the app, and its kicked tick runs in context.waitUntil", async () => {
    const pending: Promise<unknown>[] = [];
    const res = await appFunction(
      new Request("https://tickq-example.netlify.app/api/signup", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@example.com" }),
      }),
      netlifyContext(pending),
    );
    expect(res.status).toBe(201);
    expect(pending).toHaveLength(1);
    await Promise.all(pending);
    expect(sent).toEqual(["ada@example.com"]);
  });

  it("serves tickq's routes under /api behind the secret", async () => {
    const stats = (headers: Record<string, string>) =>
      appFunction(new Request("https://tickq-example.netlify.app/api/stats", { headers }), netlifyContext([]));
    expect((await stats({})).status).toBe(401);
    const authorized = await stats({ Authorization: `Bearer ${SECRET}` });
    expect(authorized.status).toBe(200);
    expect(await authorized.json()).toMatchObject({ processed: 1 });
  });

  it("answers a path outside /api (a config.path that is not basePath) with a 404 naming where it serves", async () => {
    const res = await appFunction(new Request("https://tickq-example.netlify.app/tickq/health"), netlifyContext([]));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: "no route GET /tickq/health: tickq's app serves under /api (the basePath option)",
      code: "NO_ROUTE",
    });
  });

  it("ticks when the scheduled function runs, running what waits", async () => {
    expect(tickConfig.schedule).toBe("* * * * *");
    await site.tickq(netlifyContext([])).enqueue("sendWelcomeEmail", ["grace@example.com"], { kick: false });
    // As Netlify runs a scheduled function: a POST whose body names the next run.
    const nextRun = new Request("https://tickq-example.netlify.app/.netlify/functions/tick", {
      method: "POST",
      body: JSON.stringify({ next_run: "2026-11-30T16:41:00.000Z" }),
    });
    const res = await tickFunction(nextRun, netlifyContext([]));
    expect(await res.json()).toMatchObject({ succeeded: 1, more: false });
    expect(sent.at(-1)).toBe("grace@example.com");
  });

  it("answers 503 without the site's Redis variables, and its scheduled run fails naming the log", async () => {
    const broken = tickqNetlify({ env: { TICKQ_SECRET: SECRET }, jobs: {} });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await broken.fetch(new Request("https://tickq-example.netlify.app/api/health"), netlifyContext([]));
      expect(res.status).toBe(503);
      await expect(broken.scheduled(new Request("https://x.test/"), netlifyContext([]))).rejects.toThrow(
        /cannot start: see the error logged above/,
      );
      expect(String(logged.mock.calls[0]?.[0])).toMatch(/UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN/);
    } finally {
      logged.mockRestore();
    }
  });
});
