import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const SECRET = "jobs-secret-for-tests";
const post = (body: string, headers: Record<string, string> = {}) => ({
  method: "POST",
  body,
  headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json", ...headers },
});

describe("POST /jobs", () => {
  const h = useHarness(adapterCases[0]!, "jobs-route");
  const makeApp = (maxBodyBytes?: number) => {
    const tickq = h.make({ mail: (_args: [string]) => {}, report: () => {} });
    return { app: createApp({ tickq, secrets: [SECRET], maxBodyBytes }), tickq };
  };

  it("enqueues one job and answers 201 with its jid", async () => {
    const { app } = makeApp();
    const res = await app.request("/jobs", post(JSON.stringify({ name: "mail", args: ["a@b.c"], queue: "default" })));
    expect(res.status).toBe(201);
    const { jid } = await res.json();
    expect(jid).toMatch(/^[0-9a-f]{24}$/);
    const [raw] = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    expect(JSON.parse(raw!)).toMatchObject({ jid, class: "mail", args: ["a@b.c"] });
  });

  it("enqueues a batch, as an array or as { jobs }", async () => {
    const { app } = makeApp();
    const a = await app.request(
      "/jobs",
      post(
        JSON.stringify([
          { name: "mail", args: ["x"] },
          { name: "report", args: [] },
        ]),
      ),
    );
    expect(a.status).toBe(201);
    expect((await a.json()).jids).toHaveLength(2);
    const b = await app.request("/jobs", post(JSON.stringify({ jobs: [{ name: "report", args: [], retry: 3 }] })));
    expect((await b.json()).jids).toHaveLength(1);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(3);
  });

  it("schedules with delayMs or at", async () => {
    const { app } = makeApp();
    await app.request("/jobs", post(JSON.stringify({ name: "mail", args: ["x"], delayMs: 60_000 })));
    await app.request(
      "/jobs",
      post(JSON.stringify({ name: "mail", args: ["y"], at: new Date(Date.now() + 3_600_000).toISOString() })),
    );
    expect(await h.redis.zcard(`${h.prefix}schedule`)).toBe(2);
  });

  it.each([
    ["an unknown job name", { name: "nope", args: [] }, /Unknown job "nope"/],
    ["args that are not an array", { name: "mail", args: "x" }, /^args: args must be an array/],
    ["a name that is not a string", { name: 5 }, /^name: name must be a string/],
    ["an unknown field", { name: "mail", args: [], prio: 1 }, /prio/],
    ["a negative delay", { name: "mail", args: [], delayMs: -5 }, /delayMs must be ≥ 0/],
    ["a bad date", { name: "mail", args: [], at: "tomorrow-ish" }, /at must be a date/],
    ["an empty batch", [], /no jobs given/],
    [
      "a bad job inside a batch",
      [
        { name: "mail", args: [] },
        { name: "mail", args: 1 },
      ],
      /^1\.args/,
    ],
  ])("answers 400 for %s, and enqueues nothing", async (_label, body, message) => {
    const { app } = makeApp();
    const res = await app.request("/jobs", post(JSON.stringify(body)));
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(message);
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);
  });

  it("answers 400 for a body that is not JSON", async () => {
    const res = await makeApp().app.request("/jobs", post("{nope"));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "POST /jobs: the body is not valid JSON", code: "BAD_ARGS" });
  });

  it("answers 413 for a body over the limit", async () => {
    const { app } = makeApp(1_000);
    const res = await app.request("/jobs", post(JSON.stringify({ name: "mail", args: ["x".repeat(2_000)] })));
    expect(res.status).toBe(413);
    expect((await res.json()).error).toMatch(/over 1000 bytes/);
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);
  });

  it("answers 401 without the secret", async () => {
    const res = await makeApp().app.request("/jobs", {
      method: "POST",
      body: JSON.stringify({ name: "mail", args: ["x"] }),
    });
    expect(res.status).toBe(401);
  });
});
