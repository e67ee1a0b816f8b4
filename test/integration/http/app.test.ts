import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { createApp } from "../../../src/http/app.js";
import { TickqError } from "../../../src/errors.js";
import { createTickq } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const SECRET = "s3cret-token-for-tests";
const auth = (token = SECRET) => ({ headers: { Authorization: `Bearer ${token}` } });

describe("the HTTP app", () => {
  const h = useHarness(adapterCases[0]!, "app");
  const makeApp = () => {
    const ran: string[] = [];
    const tickq = h.make({ hello: (args: [string]) => void ran.push(args[0]) });
    return { app: createApp({ tickq, secrets: [SECRET, "cron-secret-for-tests"] }), tickq, ran };
  };

  it("serves /health without auth", async () => {
    const res = await makeApp().app.request("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true });
  });

  it.each([
    ["no header", {}, /missing Authorization/],
    ["a wrong secret", auth("nope"), /wrong secret/],
    ["a malformed header", { headers: { Authorization: "Basic abc" } }, /must be: Bearer/],
  ])("answers 401 with a JSON error for %s", async (_label, init, message) => {
    const { app } = makeApp();
    for (const [path, method] of [
      ["/tick", "POST"],
      ["/tick", "GET"],
      ["/stats", "GET"],
    ] as const) {
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
    const cron = await app.request("/tick", auth("cron-secret-for-tests"));
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
    const client = new Redis("redis://127.0.0.1:1", {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
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
    // the entries read the environment, so the message names its variables, not only the option
    expect(() => createApp({ tickq, secrets: [] })).toThrow(/set TICKQ_SECRET .*TICKQ_INSECURE=1/);
    expect(() => createApp({ tickq, secrets: [], insecure: true })).not.toThrow();
  });

  // Hono's bearerAuth only matches tokens of [A-Za-z0-9._~+/-]+=*; any other
  // secret could never authenticate, so createApp refuses it at start.
  it.each([
    ["pa$$word!"],
    ["a:b"],
    ["tok=en"],
    ["=leading"],
    ["with space"],
    ["line-end\n"],
    [" padded"],
    ["héllo"],
    ["#hash"],
    ['quo"te'],
  ])("refuses at createApp a secret no request could match: %j", (bad) => {
    const tickq = h.make({});
    for (const secrets of [[bad], [SECRET, bad], [undefined, bad]]) {
      let thrown: unknown;
      try {
        createApp({ tickq, secrets });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TickqError);
      const { code, message } = thrown as TickqError;
      expect(code).toBe("BAD_OPTIONS");
      expect(message).toContain(`secret ${secrets.length} of ${secrets.length}`);
      expect(message).toContain("A-Z a-z 0-9 - . _ ~ + /");
      expect(message).toContain("openssl rand -hex 32");
      expect(message).not.toContain(bad.trim()); // never the secret itself: the Worker answers this message to anyone
    }
  });

  it("names why a secret is refused", () => {
    const tickq = h.make({});
    expect(() => createApp({ tickq, secrets: ["good\n"] })).toThrow(/whitespace at its start or end/);
    expect(() => createApp({ tickq, secrets: ["tok=en"] })).toThrow(/"=" before its end/);
    expect(() => createApp({ tickq, secrets: ["a:b"] })).toThrow(/a character outside that set/);
  });

  it("accepts a secret using every allowed character, and authenticates with it", async () => {
    const every = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/==";
    const hex = "0123456789abcdef".repeat(4); // what `openssl rand -hex 32` prints
    const tickq = h.make({ hello: () => {} });
    const app = createApp({ tickq, secrets: [every, hex] });
    for (const secret of [every, hex]) {
      const res = await app.request("/stats", auth(secret));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ processed: 0 });
    }
    const wrong = await app.request("/stats", auth(`${every.slice(0, -2)}x==`));
    expect(wrong.status).toBe(401);
  });

  it("answers 404 as JSON for unknown routes", async () => {
    const res = await makeApp().app.request("/nope", auth());
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatch(/no route GET \/nope/);
  });
});
