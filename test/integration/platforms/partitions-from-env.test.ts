// TICKQ_PARTITIONS read by the edge entries where they read their other
// settings: the Vercel function and the Worker (run in Node here, over HTTP
// Redis: the local Upstash-compatible server) lay their keys out in the
// partitions it says, a bad value answers 503 naming it, and unset keeps
// today's one-partition layout.
import { afterAll, describe, expect, it } from "vitest";
import { envSettings } from "../../../src/http/env.js";
import { tickqWorker, type WorkerEnv } from "../../../src/platforms/cloudflare/worker.js";
import { tickqVercel } from "../../../src/platforms/vercel/handler.js";
import { testEndpoints } from "../../helpers/adapters.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

const SECRET = "partitions-env-secret-0123456789";
const jobs = { ping: () => {} };
const ctx = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} };

describe("TICKQ_PARTITIONS in the edge entries", () => {
  const redis = directRedis();
  const prefixes: string[] = [];
  const fresh = (name: string) => {
    const prefix = uniquePrefix(name);
    prefixes.push(prefix);
    return prefix;
  };
  const baseEnv = () => {
    const { restUrl, restToken } = testEndpoints();
    return { UPSTASH_REDIS_REST_URL: restUrl, UPSTASH_REDIS_REST_TOKEN: restToken, TICKQ_SECRET: SECRET };
  };
  afterAll(async () => {
    for (const prefix of prefixes) await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  const post = (url: string, body: unknown) =>
    new Request(url, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
    });

  /** How many partitions hold keys under the prefix (keys under `${prefix}{tag}:`), and whether any sit outside one. */
  async function layout(prefix: string): Promise<{ partitions: number; untagged: string[] }> {
    const keys = await redis.keys(`${prefix}*`);
    const tags = new Set(keys.map((k) => /^[^{]*\{([^}]+)\}:/.exec(k)?.[1]).filter(Boolean));
    return { partitions: tags.size, untagged: keys.filter((k) => !k.includes("{") && k !== `${prefix}partitions`) };
  }

  it("the Vercel function spreads its jobs over the partitions TICKQ_PARTITIONS says", async () => {
    const prefix = fresh("vercel-part");
    const vercel = tickqVercel({ jobs, env: { ...baseEnv(), TICKQ_PREFIX: prefix, TICKQ_PARTITIONS: "3" } });
    const res = await vercel.POST(
      post(
        "http://app.test/api/jobs",
        Array.from({ length: 12 }, (_, n) => ({ name: "ping", args: [n] })),
      ),
    );
    expect(res.status).toBe(201);
    expect(vercel.tickq().partitions).toBe(3);
    expect(await redis.get(`${prefix}partitions`)).toBe("3");
    expect(await layout(prefix)).toEqual({ partitions: 3, untagged: [] });
    const stats = await vercel.GET(
      new Request("http://app.test/api/stats", { headers: { Authorization: `Bearer ${SECRET}` } }),
    );
    expect(((await stats.json()) as { queues: Record<string, number> }).queues.default).toBe(12);
  });

  it("the Worker reads it from its env bindings, and a bad value answers 503", async () => {
    const prefix = fresh("worker-part");
    const worker = tickqWorker({ jobs });
    const env: WorkerEnv = { ...baseEnv(), TICKQ_PREFIX: prefix, TICKQ_PARTITIONS: "2" };
    const res = await worker.fetch(post("http://worker.test/jobs", { name: "ping", args: [] }), env, ctx);
    expect(res.status).toBe(201);
    expect(worker.tickq(env, ctx).partitions).toBe(2);
    expect(await redis.get(`${prefix}partitions`)).toBe("2");

    const errors: unknown[] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.join(" "));
    try {
      const bad = await worker.fetch(
        post("http://worker.test/jobs", { name: "ping", args: [] }),
        {
          ...env,
          TICKQ_PARTITIONS: "three",
        },
        ctx,
      );
      expect(bad.status).toBe(503);
    } finally {
      console.error = log;
    }
    expect(String(errors[0])).toMatch(/TICKQ_PARTITIONS must be a whole number from 1, or "auto"; got "three"/);
  });

  it("unset, or auto over one Redis (Upstash), keeps the one-partition layout", async () => {
    for (const value of [undefined, "auto"]) {
      const prefix = fresh("vercel-one");
      const env = { ...baseEnv(), TICKQ_PREFIX: prefix, ...(value ? { TICKQ_PARTITIONS: value } : {}) };
      const vercel = tickqVercel({ jobs, env });
      expect((await vercel.POST(post("http://app.test/api/jobs", { name: "ping", args: [] }))).status).toBe(201);
      expect(vercel.tickq().partitions).toBe(1);
      expect(await redis.llen(`${prefix}queue:default`)).toBe(1);
      expect(await redis.exists(`${prefix}partitions`)).toBe(0);
    }
  });

  it("reads a count, auto and nothing; refuses anything else", () => {
    expect(envSettings({ TICKQ_PARTITIONS: "6" }).partitions).toBe(6);
    expect(envSettings({ TICKQ_PARTITIONS: "auto" }).partitions).toBe("auto");
    expect(envSettings({ TICKQ_PARTITIONS: "" }).partitions).toBeUndefined();
    expect(envSettings({}).partitions).toBeUndefined();
    for (const bad of ["0", "-2", "2.5", "many"])
      expect(() => envSettings({ TICKQ_PARTITIONS: bad })).toThrow(/TICKQ_PARTITIONS must be/);
  });
});
