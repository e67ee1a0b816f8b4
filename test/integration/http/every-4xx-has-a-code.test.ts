// Every 4xx the HTTP app answers is { error, code } with a code listed in
// docs/deploy/http-app.md, over every route; a field a body does not take
// names the nearest known one; a listed `queues` bounds POST /jobs.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { snapshot } from "../../helpers/snapshot.js";

const SECRET = "codes-secret-for-tests";
const READ = "codes-read-secret-for-tests";
// The first cell of each row of the codes table: `CODE` or `CODE`, `CODE`.
const DOCUMENTED = new Set(
  [...readFileSync("docs/deploy/http-app.md", "utf8").matchAll(/^\| (`[A-Z_]+`(?:, `[A-Z_]+`)*) \|/gm)].flatMap((m) =>
    [...m[1]!.matchAll(/[A-Z_]+/g)].map((c) => c[0]),
  ),
);
// A cancel remembers its operation id (a resent call answers the same): not a job written.
const written = async (redis: Parameters<typeof snapshot>[0], prefix: string) =>
  Object.fromEntries(Object.entries(await snapshot(redis, prefix)).filter(([key]) => !key.includes("op:")));

type Case = [label: string, method: string, path: string, body: unknown, status: number, code: string, error?: RegExp];
const json = (body: unknown) => (typeof body === "string" ? body : JSON.stringify(body));

const CASES: Case[] = [
  ["POST /jobs, not JSON", "POST", "/jobs", "{nope", 400, "BAD_ARGS", /not valid JSON/],
  [
    "POST /jobs, a typo'd field",
    "POST",
    "/jobs",
    { name: "ping", args: [], delay: 5 },
    400,
    "BAD_ARGS",
    /^"delay" is not a field of a job; did you mean delayMs\?/,
  ],
  [
    "POST /jobs, a typo in a batch",
    "POST",
    "/jobs",
    { jobs: [{ name: "ping", args: [], qeue: "x" }] },
    400,
    "BAD_ARGS",
    /^jobs\.0\."qeue" .*did you mean queue\?/,
  ],
  [
    "POST /jobs, a typo'd ordered field",
    "POST",
    "/jobs",
    { name: "ping", id: "a", payload: 1, scor: 2 },
    400,
    "BAD_ARGS",
    /did you mean score\?/,
  ],
  ["POST /jobs, a wrong type", "POST", "/jobs", { name: "ping", args: "x" }, 400, "BAD_ARGS", /^args: /],
  ["POST /jobs, an unknown job", "POST", "/jobs", { name: "pong", args: [] }, 400, "UNKNOWN_JOB"],
  [
    "POST /jobs, an undeclared queue",
    "POST",
    "/jobs",
    { name: "ping", args: [], queue: "critcal" },
    400,
    "UNKNOWN_QUEUE",
    /"critcal" is not one this tickq serves .*allowUndeclaredQueues/,
  ],
  ["POST /jobs, too large", "POST", "/jobs", { name: "ping", args: ["x".repeat(3_000)] }, 413, "BODY_TOO_LARGE"],
  ["GET /jobs without a state", "GET", "/jobs", undefined, 400, "BAD_STATE"],
  ["GET /jobs, a bad limit", "GET", "/jobs?state=queued&limit=x", undefined, 400, "BAD_ARGS"],
  ["GET /jobs, a bad order", "GET", "/jobs?state=queued&order=x", undefined, 400, "BAD_ARGS"],
  ["GET /jobs, a bad cursor", "GET", "/jobs?state=queued&cursor=zzz", undefined, 400, "BAD_CURSOR"],
  ["GET /jobs/:jid, none", "GET", "/jobs/nope", undefined, 404, "NOT_FOUND"],
  ["POST /jobs/:jid/retry, none", "POST", "/jobs/nope/retry", undefined, 404, "NOT_FOUND"],
  ["POST /jobs/:jid/run, none", "POST", "/jobs/nope/run", undefined, 404, "NOT_FOUND"],
  ["POST /jobs/:jid/cancel, none", "POST", "/jobs/nope/cancel", undefined, 404, "NOT_FOUND"],
  ["DELETE /jobs/:jid, none", "DELETE", "/jobs/nope", undefined, 404, "NOT_FOUND"],
  ["POST /jobs/retry-all without a state", "POST", "/jobs/retry-all", undefined, 400, "BAD_STATE"],
  ["DELETE /jobs without a state", "DELETE", "/jobs", undefined, 400, "BAD_STATE"],
  ["POST /ordered/:name/:id/cancel, none", "POST", "/ordered/nope/a/cancel", undefined, 404, "NOT_FOUND"],
  ["GET /stats/history, bad days", "GET", "/stats/history?days=x", undefined, 400, "BAD_ARGS"],
  ["GET /health, bad strict", "GET", "/health?strict=maybe", undefined, 400, "BAD_ARGS"],
  ["POST /workflows, not JSON", "POST", "/workflows", "{", 400, "BAD_ARGS"],
  ["POST /workflows, runs not a list", "POST", "/workflows", { runs: "x" }, 400, "BAD_ARGS"],
  ["POST /workflows, too large", "POST", "/workflows", { runs: ["x".repeat(3_000)] }, 413, "BODY_TOO_LARGE"],
  ["POST /workflows/:name, not JSON", "POST", "/workflows/nope", "{", 400, "BAD_ARGS"],
  ["POST /workflows/:name, too large", "POST", "/workflows/nope", { input: "x".repeat(3_000) }, 413, "BODY_TOO_LARGE"],
  ["POST /events without an event", "POST", "/events", {}, 400, "BAD_ARGS"],
  ["GET /workflows/:id, none", "GET", "/workflows/nope", undefined, 404, "NOT_FOUND"],
  ["GET /workflows, a bad status", "GET", "/workflows?status=zzz", undefined, 400, "BAD_STATE"],
  ["GET /workflows, a bad limit", "GET", "/workflows?limit=x", undefined, 400, "BAD_ARGS"],
  ["POST /workflows/:id/cancel, none", "POST", "/workflows/nope/cancel", undefined, 404, "NOT_FOUND"],
  ["POST /workflows/:id/retry, none", "POST", "/workflows/nope/retry", undefined, 404, "NOT_FOUND"],
  ["POST /workflows/:id/fork, none", "POST", "/workflows/nope/fork", { fromStep: "a" }, 404, "NOT_FOUND"],
  ["POST /workflows/:id/fork, not JSON", "POST", "/workflows/nope/fork", "{", 400, "BAD_ARGS"],
  [
    "POST /workflows/:name/retry-all, a bad status",
    "POST",
    "/workflows/w/retry-all?status=x",
    undefined,
    400,
    "BAD_STATE",
  ],
  ["POST /queues/:name/pause, a bad name", "POST", "/queues/a%20b/pause", undefined, 400, "BAD_ARGS"],
  ["POST /queues/:name/resume, a bad name", "POST", "/queues/a%20b/resume", undefined, 400, "BAD_ARGS"],
  ["no such route", "GET", "/nope", undefined, 404, "NO_ROUTE"],
];

// Routes whose only 4xx is auth's (no input they read can be wrong; an unknown jid's result is
// { state: "unknown" }), and the open ones: `every route` below holds the list to the app's routes.
const AUTH_ONLY = [
  "GET /stats",
  "GET /metrics",
  "GET /schedules",
  "GET /queues",
  "GET /tick",
  "POST /tick",
  "GET /jobs/:jid/result",
];
const OPEN = ["GET /", "GET /health", "GET /favicon.ico"];

/** The app's routes as "METHOD /path", each once (Hono lists middleware as ALL). */
const routesOf = (app: ReturnType<typeof createApp>) => [
  ...new Set(app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`)),
];
const matches = (route: string, method: string, path: string) => {
  const [m, pattern] = route.split(" ") as [string, string];
  const shape = new RegExp(`^${pattern.replace(/:\w+/g, "[^/]+")}$`);
  return m === method && shape.test(path.split("?")[0]!);
};

describe.each(adapterCases)("every 4xx over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "codes");
  const makeApp = (options: { allowUndeclaredQueues?: boolean } = {}) =>
    createApp({
      tickq: h.make({ ping: { queue: "mail", perform: () => {} } }, { queues: ["default"], ...options }),
      secrets: [SECRET],
      readSecrets: [READ],
      maxBodyBytes: 2_000,
    });
  const request = (method: string, body: unknown, secret = SECRET) => ({
    method,
    headers: { Authorization: `Bearer ${secret}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: json(body) }),
  });

  it.each(CASES)(
    "%s: %s %s answers { error, code } with a documented code",
    async (_l, method, path, body, status, code, error) => {
      const app = makeApp();
      const before = await written(h.redis, h.prefix);
      const res = await app.request(path, request(method, body));
      expect(res.status).toBe(status);
      const answer = (await res.json()) as { error: unknown; code: unknown };
      expect(answer).toMatchObject({ code, error: expect.any(String) });
      if (error) expect(answer.error).toMatch(error);
      expect(DOCUMENTED, `${code} is listed in docs/deploy/http-app.md`).toContain(code);
      expect(await written(h.redis, h.prefix)).toEqual(before);
    },
  );

  it.each([
    ["no credential", "GET", "/stats", undefined, 401],
    ["a read secret changing something", "POST", "/jobs/nope/retry", READ, 403],
  ] as const)("auth: %s answers { error, code } with a documented code", async (_l, method, path, secret, status) => {
    const res = await makeApp().request(path, secret === undefined ? { method } : request(method, undefined, secret));
    expect(res.status).toBe(status);
    const answer = (await res.json()) as { code: string };
    expect(answer).toMatchObject({ error: expect.any(String) });
    expect(DOCUMENTED).toContain(answer.code);
  });

  it("covers every route: each has a case above, or answers 401 { error, code } as its only 4xx", async () => {
    const app = makeApp();
    const routes = routesOf(app);
    expect(routes.length).toBeGreaterThan(25);
    for (const route of routes) {
      if (OPEN.includes(route)) continue;
      const [method, path] = route.split(" ") as [string, string];
      const concrete = path.replace(/:\w+/g, "nope");
      const res = await app.request(concrete, { method });
      expect(res.status, `${route} without a credential`).toBe(401);
      expect(DOCUMENTED).toContain(((await res.json()) as { code: string }).code);
      if (AUTH_ONLY.includes(route)) continue;
      expect(
        CASES.some(([, m, p]) => matches(route, m, p)),
        `${route} has a case in CASES (or belongs in AUTH_ONLY)`,
      ).toBe(true);
    }
    for (const listed of [...AUTH_ONLY, ...OPEN]) expect(routes, listed).toContain(listed);
  });

  it("a declared job's queue and a listed queue are accepted; allowUndeclaredQueues accepts any", async () => {
    const app = makeApp();
    for (const queue of [undefined, "mail", "default"]) {
      const res = await app.request("/jobs", request("POST", { name: "ping", args: [], ...(queue ? { queue } : {}) }));
      expect(res.status, String(queue)).toBe(201);
    }
    const open = makeApp({ allowUndeclaredQueues: true });
    expect((await open.request("/jobs", request("POST", { name: "ping", args: [], queue: "elsewhere" }))).status).toBe(
      201,
    );
  });

  it("a tickq that lists no queues accepts any queue, as before", async () => {
    const app = createApp({ tickq: h.make({ ping: () => {} }), secrets: [SECRET] });
    expect((await app.request("/jobs", request("POST", { name: "ping", args: [], queue: "anything" }))).status).toBe(
      201,
    );
  });
});
