// tickqExpress inside a real Express app: what a body parser mounted before it does, one handler
// mounted at two paths, close() waiting for a kicked tick, and a bad setting thrown once, not also logged.
import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler, type Express } from "express";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { tickqExpress, type TickqExpressOptions } from "../../../src/platforms/express/index.js";
import type { JobRegistry } from "../../../src/index.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

const SECRET = "express-handler-secret-0123";
const auth = { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" };
const redis = directRedis();
const prefixes: string[] = [];

afterAll(async () => {
  for (const prefix of prefixes) await deleteUnder(redis, prefix);
  redis.disconnect();
});

function handlerOf<J extends JobRegistry>(jobs: J, options: Partial<TickqExpressOptions<J>> = {}) {
  const prefix = uniquePrefix("express-handler");
  prefixes.push(prefix);
  const handler = tickqExpress({
    redis: ioredisAdapter(redis),
    jobs,
    prefix,
    tickEveryMs: 0,
    env: { TICKQ_SECRET: SECRET },
    ...options,
  });
  return { handler, prefix };
}

/** Serves `app` on a free port for the length of `use`. */
async function serving(app: Express, use: (url: string) => Promise<void>) {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const job = JSON.stringify({ name: "noop", args: [1] });

describe("tickqExpress", () => {
  it("answers 500 naming the fix, and enqueues nothing, when a body parser read the request first", async () => {
    const { handler, prefix } = handlerOf({ noop: () => {} });
    const app = express();
    app.use(express.json());
    app.use("/tickq", handler);
    await serving(app, async (url) => {
      const res = await fetch(`${url}/tickq/jobs`, { method: "POST", body: job, headers: auth });
      expect(res.status).toBe(500);
      expect(((await res.json()) as { error: string }).error).toMatch(
        /mount tickqExpress before express\.json\(\).*req\.rawBody = buf/,
      );
    });
    expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
    await handler.close();
  });

  it("takes the bytes a body parser before it kept in req.rawBody", async () => {
    const { handler, prefix } = handlerOf({ noop: () => {} });
    const app = express();
    app.use(express.json({ verify: (req, _res, buf) => Object.assign(req, { rawBody: buf }) }));
    app.use("/tickq", handler);
    await serving(app, async (url) => {
      const res = await fetch(`${url}/tickq/jobs`, { method: "POST", body: job, headers: auth });
      expect(res.status).toBe(201);
    });
    expect(await redis.llen(`${prefix}queue:default`)).toBe(1);
    await handler.close();
  });

  it("serves one mount path and refuses a second, naming the fix", async () => {
    const { handler } = handlerOf({});
    const app = express();
    app.use("/first", handler);
    app.use("/second", handler);
    const caught: ErrorRequestHandler = (error: Error, _req, res, _next) => {
      res.status(500).json({ error: error.message });
    };
    app.use(caught);
    await serving(app, async (url) => {
      expect((await fetch(`${url}/first/stats`, { headers: auth })).status).toBe(200);
      const second = await fetch(`${url}/second/stats`, { headers: auth });
      expect(second.status).toBe(500);
      expect(await second.json()).toEqual({
        error: "tickqExpress is mounted at /first and /second: mount one handler per path, or pass basePath",
      });
    });
    await handler.close();
  });

  it("a secret too short to use is thrown to the app once, naming the fix, and not also logged", () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      expect(() => handlerOf({}, { env: { TICKQ_SECRET: "short-secret" } })).toThrow(
        /shorter than 16 characters.*openssl rand -hex 32/,
      );
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
    }
  });

  it("close() waits for a kicked tick's job to finish", async () => {
    const done: string[] = [];
    const jobs = {
      slow: async ([id]: [string]) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        done.push(id);
      },
    };
    const { handler } = handlerOf(jobs);
    await handler.tickq.enqueue("slow", ["a"], { kick: true });
    // The kicked tick has begun the job but not finished it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await handler.close();
    expect(done).toEqual(["a"]);
  });
});
