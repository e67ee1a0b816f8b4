import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { ioredisAdapter } from "../adapters/ioredis.js";
import { createApp } from "../functions/app.js";
import { createTickq } from "../src/index.js";
import { adapterCases } from "./helpers/adapters.js";
import { useHarness } from "./helpers/harness.js";

const SECRET = "s3cret-token";
const auth = (token = SECRET) => ({ headers: { Authorization: `Bearer ${token}` } });

describe("the HTTP app", () => {
  const h = useHarness(adapterCases[0]!, "app");
  const makeApp = () => {
    const ran: string[] = [];
    const tickq = h.make({ hello: (args: [string]) => void ran.push(args[0]) });
    return { app: createApp({ tickq, secrets: [SECRET, "cron-secret"] }), tickq, ran };
  };

  it("serves /health without auth", async () => {
    const res = await makeApp().app.request("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it.each([
    ["no header", {}, /missing Authorization/],
    ["a wrong secret", auth("nope"), /wrong secret/],
    ["a malformed header", { headers: { Authorization: "Basic abc" } }, /must be: Bearer/],
  ])("answers 401 with a JSON error for %s", async (_label, init, message) => {
    const { app } = makeApp();
    for (const [path, method] of [["/tick", "POST"], ["/tick", "GET"], ["/stats", "GET"]] as const) {
      const res = await app.request(path, { method, ...init });
      expect(res.status).toBe(401);
      expect((await res.json()).error).toMatch(message);
    }
  });

  it("runs a tick on POST /tick and GET /tick, with either secret", async () => {
    const { app, tickq, ran } = makeApp();
    await tickq.enqueue("hello", ["one"]);
    const res = await app.request("/tick", { method: "POST", ...auth() });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ fetched: 1, succeeded: 1, more: false });
    await tickq.enqueue("hello", ["two"]);
    const cron = await app.request("/tick", auth("cron-secret"));
    expect((await cron.json()).succeeded).toBe(1);
    expect(ran).toEqual(["one", "two"]);
  });

  it("answers stats", async () => {
    const { app, tickq } = makeApp();
    await tickq.enqueue("hello", ["x"]);
    const res = await app.request("/stats", auth());
    expect(await res.json()).toMatchObject({ queues: { default: 1 }, processed: 0 });
  });

  it("answers 503 with a clear error, no stack, when Redis is down", async () => {
    const client = new Redis("redis://127.0.0.1:1", { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on("error", () => {});
    const tickq = createTickq({ redis: ioredisAdapter(client), jobs: {}, redisTimeoutMs: 1_000 });
    const app = createApp({ tickq, secrets: [SECRET] });
    const res = await app.request("/tick", { method: "POST", ...auth() });
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.error).toMatch(/Redis/);
    expect(JSON.stringify(body)).not.toMatch(/\bat .*\.(ts|js):\d+/);
    client.disconnect();
  });

  it("refuses to build without a secret unless insecure", () => {
    const tickq = h.make({});
    expect(() => createApp({ tickq, secrets: [] })).toThrow(/needs a secret/);
    expect(() => createApp({ tickq, secrets: [""] })).toThrow(/needs a secret/);
    expect(() => createApp({ tickq, secrets: [], insecure: true })).not.toThrow();
  });

  it("answers 404 as JSON for unknown routes", async () => {
    const res = await makeApp().app.request("/nope", auth());
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatch(/no route GET \/nope/);
  });
});
