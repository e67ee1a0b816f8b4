import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { createApp } from "../../../src/http/app.js";
import { createTickq } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const SECRET = "s3cret-for-tests-0";
const auth = { Authorization: `Bearer ${SECRET}` };
const boom = () => {
  throw new Error("boom");
};

describe.each(adapterCases)("the jobs API over HTTP, $name", (adapterCase) => {
  const h = useHarness(adapterCase, "routes");
  const setup = () => {
    const tickq = h.make({ ok: () => {}, fail: { retry: false, perform: boom } });
    const app = createApp({ tickq, secrets: [SECRET] });
    const call = async (method: string, path: string) => {
      const res = await app.request(path, { method, headers: auth });
      return { status: res.status, body: await res.json() };
    };
    return { tickq, app, call };
  };

  it("lists, shows, retries and deletes jobs", async () => {
    const { tickq, call } = setup();
    const jids = await tickq.enqueueBulk(Array.from({ length: 5 }, (_, i) => ({ name: "fail" as const, args: [i] })));
    await tickq.tick();
    const first = await call("GET", "/jobs?state=dead&limit=2&order=oldest");
    expect(first.status).toBe(200);
    expect(first.body.jobs).toHaveLength(2);
    expect(first.body.jobs[0]).toMatchObject({ state: "dead", name: "fail", job: { error_message: "boom" } });
    expect(first.body.jobs[0]).not.toHaveProperty("raw");
    const second = await call(
      "GET",
      `/jobs?state=dead&limit=2&order=oldest&cursor=${encodeURIComponent(first.body.cursor)}`,
    );
    expect(second.body.jobs).toHaveLength(2);

    const shown = await call("GET", `/jobs/${jids[0]}`);
    expect(shown).toMatchObject({ status: 200, body: { state: "dead", jid: jids[0], raw: expect.any(String) } });
    expect(await call("POST", `/jobs/${jids[0]}/retry`)).toMatchObject({
      status: 200,
      body: { state: "queued", queue: "default" },
    });
    expect(await call("DELETE", `/jobs/${jids[1]}`)).toMatchObject({
      status: 200,
      body: { state: "dead", jid: jids[1] },
    });
    expect(await call("GET", `/jobs/${jids[1]}`)).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect(await call("POST", "/jobs/retry-all?state=dead")).toEqual({ status: 200, body: { retried: 3 } });
    expect(await call("DELETE", "/jobs?state=queued&queue=default&name=fail")).toEqual({
      status: 200,
      body: { deleted: 4 },
    });

    const later = await tickq.enqueue("ok", [], { delayMs: 60_000 });
    expect(await call("POST", `/jobs/${later}/run`)).toMatchObject({ status: 200, body: { state: "queued" } });
  });

  it("answers 404 for an unknown jid, 400 for a bad state, cursor or limit, 409 for a job in the wrong state", async () => {
    const { tickq, call } = setup();
    for (const [method, path] of [
      ["GET", "/jobs/nope"],
      ["POST", "/jobs/nope/retry"],
      ["DELETE", "/jobs/nope"],
      ["POST", "/jobs/nope/run"],
    ]) {
      const res = await call(method!, path!);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toMatch(/no job with jid "nope"/);
    }
    expect(await call("GET", "/jobs")).toMatchObject({ status: 400, body: { code: "BAD_STATE" } });
    expect(await call("GET", "/jobs?state=finished")).toMatchObject({
      status: 400,
      body: { code: "BAD_STATE", error: expect.stringMatching(/queued, scheduled, retry, dead, running/) },
    });
    expect(await call("GET", "/jobs?state=dead&cursor=xyz")).toMatchObject({
      status: 400,
      body: { code: "BAD_CURSOR" },
    });
    expect(await call("GET", "/jobs?state=dead&limit=abc")).toMatchObject({ status: 400, body: { code: "BAD_ARGS" } });
    expect(await call("GET", "/jobs?state=dead&order=up")).toMatchObject({ status: 400, body: { code: "BAD_ARGS" } });
    expect(await call("POST", "/jobs/retry-all?state=queued")).toMatchObject({
      status: 400,
      body: { code: "BAD_STATE" },
    });
    const queued = await tickq.enqueue("ok", []);
    expect(await call("POST", `/jobs/${queued}/retry`)).toMatchObject({ status: 409, body: { code: "CONFLICT" } });
  });

  it("pauses and resumes queues, lists them, and answers the daily history", async () => {
    const { tickq, call } = setup();
    await tickq.enqueue("ok", [], { queue: "mail" });
    expect(await call("POST", "/queues/mail/pause")).toEqual({ status: 200, body: { queue: "mail", paused: true } });
    expect((await call("GET", "/queues")).body.queues).toEqual([
      { name: "mail", size: 1, paused: true, lastServedAt: null, latencyMs: expect.any(Number) },
    ]);
    expect(await call("POST", "/queues/mail/resume")).toEqual({ status: 200, body: { queue: "mail", paused: false } });
    expect((await call("GET", "/stats")).body).toMatchObject({ paused: [], queues: { mail: 1 } });
    await tickq.enqueue("ok", []);
    await tickq.tick();
    const history = await call("GET", "/stats/history?days=2");
    expect(history.status).toBe(200);
    expect(history.body.days).toHaveLength(2);
    expect(history.body.days[1]).toMatchObject({ processed: 1, failed: 0 });
    expect(await call("GET", "/stats/history?days=-1")).toMatchObject({ status: 400 });
  });

  it("requires the secret on every jobs API route", async () => {
    const { app } = setup();
    for (const [method, path] of [
      ["GET", "/jobs?state=dead"],
      ["GET", "/jobs/x"],
      ["POST", "/jobs/x/retry"],
      ["DELETE", "/jobs/x"],
      ["POST", "/queues/q/pause"],
      ["GET", "/stats/history"],
    ]) {
      const res = await app.request(path!, { method });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it("GET /health reports lastTickAt and warnings to a caller with a secret", async () => {
    const { tickq, app } = setup();
    await tickq.enqueue("ok", []);
    const authed = { headers: { Authorization: `Bearer ${SECRET}` } };
    const before = await app.request("/health", authed);
    expect(before.status).toBe(200);
    expect(await before.json()).toEqual({
      ok: true,
      lastTickAt: null,
      warnings: [expect.stringMatching(/No tick has ever run while 1 job/)],
    });
    await tickq.tick();
    expect(await (await app.request("/health", authed)).json()).toEqual({
      ok: true,
      lastTickAt: expect.any(Number),
      warnings: [],
    });
  });
});

describe("GET /health with Redis down", () => {
  it("answers 503 with the reason to a caller with a secret", async () => {
    const client = new Redis("redis://127.0.0.1:1", {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on("error", () => {});
    const tickq = createTickq({ redis: ioredisAdapter(client), jobs: {}, redisTimeoutMs: 1_000 });
    const res = await createApp({ tickq, secrets: [SECRET] }).request("/health", {
      headers: { Authorization: `Bearer ${SECRET}` },
    });
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body).toMatchObject({ ok: false, warnings: [] });
    expect(body.error).toMatch(/Redis/);
    client.disconnect();
  });
});
