// GET /health tells an anonymous caller only whether the service is up, a
// caller with a secret the warnings or the reason, and a flood of checks
// costs one stats call every few seconds.
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { createApp } from "../../../src/http/app.js";
import { HEALTH_CACHE_MS } from "../../../src/http/routes/health.js";
import { createTickq, type JobRegistry, type Tickq } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

const SECRET = "health-secret-0123456789";
const READ = "health-read-0123456789";

/** The tickq, with its stats calls counted. */
function counted(tickq: Tickq<JobRegistry>) {
  const calls = { n: 0 };
  const stats = Object.assign(() => (calls.n++, tickq.stats()), { history: tickq.stats.history });
  return { tickq: { ...tickq, stats }, calls };
}

describe.each(adapterCases)("GET /health over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sec-health");

  it("gives an anonymous caller only ok, and a caller with a secret the warnings", async () => {
    const { tickq } = counted(h.make({ hello: () => {} }));
    await tickq.enqueue("hello", []); // a job waiting and no tick yet: a warning
    const app = createApp({ tickq, secrets: [SECRET], readSecrets: [READ] });
    const anonymous = await app.request("/health");
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ ok: true });
    for (const token of [SECRET, READ]) {
      const detailed = await (await app.request("/health", { headers: { authorization: `Bearer ${token}` } })).json();
      expect(detailed).toMatchObject({ ok: true, warnings: expect.any(Array) });
    }
  });
});

describe("GET /health's cache", () => {
  const h = useHarness(adapterCases[0]!, "sec-health-cache");

  it("costs one stats call per few seconds, however many checks come", async () => {
    const { tickq, calls } = counted(h.make({}));
    const app = createApp({ tickq, secrets: [SECRET] });
    await Promise.all(Array.from({ length: 20 }, () => app.request("/health")));
    expect(calls.n).toBe(1);
    await sleep(HEALTH_CACHE_MS + 50);
    await app.request("/health");
    expect(calls.n).toBe(2);
  });
});

describe("GET /health with Redis down", () => {
  it("gives an anonymous caller a 503 with a stable code and no reason; a caller with a secret the reason", async () => {
    const client = new Redis("redis://default:RedisPassword0123@127.0.0.1:1", {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on("error", () => {});
    try {
      const tickq = createTickq({ redis: ioredisAdapter(client), jobs: {}, redisTimeoutMs: 500 });
      const app = createApp({ tickq, secrets: [SECRET] });
      const anonymous = await app.request("/health");
      expect(anonymous.status).toBe(503);
      expect(await anonymous.json()).toEqual({ ok: false, code: "UNAVAILABLE" });
      const detailed = await app.request("/health", { headers: { authorization: `Bearer ${SECRET}` } });
      expect(detailed.status).toBe(503);
      const body = await detailed.json();
      expect(body).toMatchObject({ ok: false, code: expect.stringMatching(/^REDIS/) });
      expect(JSON.stringify(body)).not.toContain("RedisPassword0123");
    } finally {
      client.disconnect();
    }
  });
});

describe.each(adapterCases)("GET /health?strict=1 over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sec-health-strict");

  it("answers 503 while there are warnings only when the request asks, and names the job no tick can start", async () => {
    const tickq = h.make({ report: { timeoutMs: 4_000, perform: () => {} } });
    const app = createApp({ tickq, secrets: [SECRET] });
    const auth = { headers: { authorization: `Bearer ${SECRET}` } };
    expect((await app.request("/health?strict=1", auth)).status).toBe(200); // nothing wrong yet
    await tickq.enqueue("report", []);
    await tickq.tick({ budgetMs: 900 });

    const plain = await app.request("/health", auth);
    expect(plain.status).toBe(200); // existing probes stay green
    expect(await plain.json()).toMatchObject({ ok: true, warnings: [expect.stringContaining('"report"')] });
    const strict = await app.request("/health?strict=1", auth);
    expect(strict.status).toBe(503);
    expect(await strict.json()).toMatchObject({
      ok: false,
      code: "WARNINGS",
      warnings: [expect.stringMatching(/^1 job\(s\) of "report" in queue "default" cannot start/)],
    });
    const anonymous = await app.request("/health?strict=true");
    expect(anonymous.status).toBe(503);
    expect(await anonymous.json()).toEqual({ ok: false, code: "WARNINGS" });
    expect((await app.request("/health?strict=0")).status).toBe(200);
    const bad = await app.request("/health?strict=yes");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "BAD_ARGS", error: expect.stringContaining("strict must be 1") });
  });
});
