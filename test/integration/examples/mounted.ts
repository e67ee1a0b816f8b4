// What an example of a framework that mounts tickq under /tickq (Express, Fastify) must do, run with
// the real framework as its README says: its own signup runs the job; the dashboard's login page,
// redirects, links and session cookie stay under /tickq/dashboard; tickq's routes answer under
// /tickq, behind the secret, with request bodies reaching the app whole.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  outputHolding,
  processedUnder,
  startExample,
  type ExampleName,
  type RunningExample,
} from "../../helpers/examples.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";

const SECRET = "mounted-example-secret-0123";
const auth = { Authorization: `Bearer ${SECRET}` };

export function describeMountedExample(name: ExampleName & ("express" | "fastify")) {
  describe(`examples/${name}, tickq mounted under /tickq`, () => {
    const redis = directRedis();
    const prefix = uniquePrefix(`example-${name}`);
    let service: RunningExample | undefined;
    const at = (path: string) => `${service!.url}${path}`;

    beforeAll(async () => {
      service = await startExample(name, "src/server.ts", {
        REDIS_URL: redisUrl(),
        TICKQ_PREFIX: prefix,
        PORT: "0",
        TICKQ_SECRET: SECRET,
      });
    }, 60_000);
    afterAll(async () => {
      await service?.stop();
      await deleteUnder(redis, prefix);
      redis.disconnect();
    });

    it("runs the welcome email of a POST /signup, its own route", async () => {
      const res = await fetch(at("/signup"), {
        method: "POST",
        body: JSON.stringify({ email: "ada@example.com" }),
        headers: { "content-type": "application/json" },
      });
      expect(res.status).toBe(201);
      expect(await processedUnder(redis, prefix, 1)).toBeGreaterThanOrEqual(1);
      const sent = "welcome email sent to ada@example.com";
      expect(await outputHolding(service!, sent)).toContain(sent);
    });

    it("serves the dashboard's login under /tickq/dashboard, and its session cookie and links stay there", async () => {
      const away = await fetch(at("/tickq/dashboard"), { redirect: "manual" });
      expect(away.status).toBe(303);
      expect(away.headers.get("location")).toBe("/tickq/dashboard/login");
      const form = await fetch(at("/tickq/dashboard/login"));
      expect(form.status).toBe(200);
      expect(await form.text()).toContain('action="/tickq/dashboard/login"');

      // A form body, which Fastify has no parser for: it must reach the app unread.
      const login = await fetch(at("/tickq/dashboard/login"), {
        method: "POST",
        body: new URLSearchParams({ secret: SECRET }),
        headers: { "sec-fetch-site": "same-origin" },
        redirect: "manual",
      });
      expect(login.status).toBe(303);
      expect(login.headers.get("location")).toBe("/tickq/dashboard");
      const cookie = login.headers.get("set-cookie") ?? "";
      expect(cookie).toContain("Path=/tickq/dashboard;");
      const page = await fetch(at("/tickq/dashboard"), { headers: { cookie: cookie.split(";")[0]! } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('href="/tickq/dashboard/queues"');
    });

    it("answers tickq's routes under /tickq only with the secret, and runs a job POSTed to /tickq/jobs", async () => {
      expect((await fetch(at("/tickq/stats"))).status).toBe(401);
      expect((await fetch(at("/tickq/stats"), { headers: auth })).status).toBe(200);
      expect((await fetch(at("/stats"), { headers: auth })).status).toBe(404);
      const before = Number((await redis.get(`${prefix}stat:processed`)) ?? 0);
      const res = await fetch(at("/tickq/jobs"), {
        method: "POST",
        body: JSON.stringify({ name: "sendWelcomeEmail", args: ["grace@example.com"] }),
        headers: { ...auth, "content-type": "application/json" },
      });
      expect(res.status).toBe(201);
      // Not kicked: the in-process loop runs it within a second or two.
      expect(await processedUnder(redis, prefix, before + 1)).toBe(before + 1);
      const health = (await (await fetch(at("/tickq/health"), { headers: auth })).json()) as { lastTickAt?: unknown };
      expect(health.lastTickAt).toEqual(expect.any(Number));
    });
  });
}
