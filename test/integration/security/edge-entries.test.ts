// The Worker (in Miniflare) and the Vercel handler, misconfigured the ways
// people misconfigure them: a `rediss://default:PASSWORD@…` URL where the
// REST URL belongs, or fan-out with no URL configured. Every caller gets a
// generic 503 with a stable code; no answer and no log line holds the
// password; fan-out never goes to the host a request names.
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { tickqVercel } from "../../../src/platforms/vercel/handler.js";
import { testEndpoints } from "../../helpers/adapters.js";
import { deleteUnder, directRedis, sleep, uniquePrefix } from "../../helpers/redis.js";
import { workerBundle } from "../../helpers/worker-bundle.js";
import { startRecorder, startTrap, type Trap } from "./listeners.js";

const PASSWORD = "Upstash0Password0For0Tests";
const MISPLACED = `rediss://default:${PASSWORD}@eu1-example-12345.upstash.io:6379`;
const SECRET = "edge-secret-0123456789abcdef";

describe("the Worker misconfigured", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("sec-worker");
  let mf: Miniflare;
  let trap: Trap;
  let logs = "";

  beforeAll(async () => {
    trap = await startTrap();
    const { restUrl, restToken } = testEndpoints();
    const script = await workerBundle();
    const base = { modules: true, script, compatibilityDate: "2025-09-01" };
    mf = new Miniflare({
      workers: [
        {
          ...base,
          name: "misplaced",
          bindings: {
            UPSTASH_REDIS_REST_URL: MISPLACED,
            UPSTASH_REDIS_REST_TOKEN: PASSWORD,
            TICKQ_SECRET: SECRET,
            TICKQ_PREFIX: prefix,
          },
        },
        {
          ...base,
          name: "no-url",
          bindings: {
            UPSTASH_REDIS_REST_URL: restUrl,
            UPSTASH_REDIS_REST_TOKEN: restToken,
            TICKQ_SECRET: SECRET,
            TICKQ_PREFIX: prefix,
            TICKQ_MAX_PARALLEL: "3",
            TICKQ_KICK: "1",
          },
        },
      ],
      handleRuntimeStdio(stdout: Readable, stderr: Readable) {
        stdout.on("data", (chunk: Buffer) => (logs += chunk.toString()));
        stderr.on("data", (chunk: Buffer) => (logs += chunk.toString()));
      },
    });
    await mf.ready;
  }, 60_000);

  afterAll(async () => {
    await mf?.dispose();
    await trap?.close();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  type Fetcher = { fetch(url: string, init?: RequestInit): Promise<Response> };
  const call = async (worker: string, url: string, init: RequestInit = {}) =>
    ((await mf.getWorker(worker)) as unknown as Fetcher).fetch(url, init);

  it("answers a generic 503 to everyone when the REST URL is a rediss:// URL, and logs it masked", async () => {
    const answers = [
      await call("misplaced", "http://worker.test/health"),
      await call("misplaced", "http://worker.test/signup", { method: "POST", body: '{"email":"a@b.c"}' }),
      await call("misplaced", "http://worker.test/tick", {
        method: "POST",
        headers: { authorization: `Bearer ${SECRET}` },
      }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ code: "UNAVAILABLE" });
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain("upstash.io");
    }
    for (let i = 0; i < 50 && !logs.includes("rediss://"); i++) await sleep(20);
    expect(logs).toContain("rediss://default:***@eu1-example-12345.upstash.io");
    expect(logs).not.toContain(PASSWORD);
  });

  it("refuses fan-out with no TICKQ_PUBLIC_URL nor TICKQ_SELF, naming them, and sends nothing to a host a request names", async () => {
    const hostile = `http://127.0.0.1:${trap.port}`;
    const res = await call("no-url", `${hostile}/signup`, { method: "POST", body: '{"email":"a@b.c"}' });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: "UNAVAILABLE" });
    for (let i = 0; i < 50 && !logs.includes("TICKQ_PUBLIC_URL"); i++) await sleep(20);
    expect(logs).toMatch(/fan-out .*TICKQ_PUBLIC_URL.*TICKQ_SELF/);
    await sleep(300);
    expect(trap.connections()).toBe(0);
  });
});

describe("the Vercel handler misconfigured", () => {
  const logged = async (call: () => Promise<Response>) => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await call();
      return { res, text: await res.text(), log: spy.mock.calls.map((args) => args.map(String).join(" ")).join("\n") };
    } finally {
      spy.mockRestore();
    }
  };

  it("answers a generic 503 when the REST URL is a rediss:// URL, and logs it masked", async () => {
    const handler = tickqVercel({
      jobs: {},
      env: { UPSTASH_REDIS_REST_URL: MISPLACED, UPSTASH_REDIS_REST_TOKEN: "tok", TICKQ_SECRET: SECRET },
    });
    for (const path of ["/api/health", "/api/tick", "/api/stats"]) {
      const { res, text, log } = await logged(() => handler.GET(new Request(`https://app.example${path}`)));
      expect(res.status).toBe(503);
      expect(JSON.parse(text)).toMatchObject({ code: "UNAVAILABLE" });
      expect(text).not.toContain(PASSWORD);
      expect(log).toContain("rediss://default:***@eu1-example-12345.upstash.io");
      expect(log).not.toContain(PASSWORD);
    }
  });

  it("fans out to TICKQ_PUBLIC_URL whatever host a request names", async () => {
    const { restUrl, restToken } = testEndpoints();
    const redis = directRedis();
    const prefix = uniquePrefix("sec-vercel");
    const trap = await startTrap();
    const recorder = await startRecorder();
    const pending: Promise<unknown>[] = [];
    try {
      const handler = tickqVercel({
        jobs: { nap: async () => void (await sleep(10)) },
        tick: { budgetMs: 50, batch: 2 },
        waitUntil: (p) => void pending.push(p),
        env: {
          UPSTASH_REDIS_REST_URL: restUrl,
          UPSTASH_REDIS_REST_TOKEN: restToken,
          TICKQ_SECRET: SECRET,
          TICKQ_PREFIX: prefix,
          TICKQ_MAX_PARALLEL: "2",
          TICKQ_PUBLIC_URL: `${recorder.url}/api`,
        },
      });
      await handler.tickq().enqueueBulk(Array.from({ length: 30 }, () => ({ name: "nap", args: [], kick: false })));
      const res = await handler.POST(
        new Request(`http://127.0.0.1:${trap.port}/api/tick`, {
          method: "POST",
          headers: { authorization: `Bearer ${SECRET}` },
        }),
      );
      expect(res.status).toBe(200);
      await Promise.allSettled(pending);
      expect(recorder.requests.length).toBeGreaterThan(0);
      expect(
        recorder.requests.every((r) => r.url === "/api/tick?wait=0" && r.headers.authorization === undefined),
      ).toBe(true);
      expect(trap.connections()).toBe(0);
    } finally {
      await recorder.close();
      await trap.close();
      await deleteUnder(redis, prefix);
      redis.disconnect();
    }
  });

  it("refuses fan-out with no TICKQ_PUBLIC_URL, naming it in the log", async () => {
    const { restUrl, restToken } = testEndpoints();
    const handler = tickqVercel({
      jobs: {},
      env: {
        UPSTASH_REDIS_REST_URL: restUrl,
        UPSTASH_REDIS_REST_TOKEN: restToken,
        TICKQ_SECRET: SECRET,
        TICKQ_MAX_PARALLEL: "2",
      },
    });
    const { res, log } = await logged(() => handler.GET(new Request("https://app.example/api/health")));
    expect(res.status).toBe(503);
    expect(log).toMatch(/TICKQ_PUBLIC_URL/);
  });
});
