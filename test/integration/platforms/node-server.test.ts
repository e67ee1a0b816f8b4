import { describe, expect, it } from "vitest";
import type { WorkflowStep } from "../../../src/index.js";
import { startServer } from "../../../src/platforms/node/server.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { redisUrl, sleep } from "../../helpers/redis.js";

describe("the Node server (npm start)", () => {
  const h = useHarness(adapterCases[0]!, "server");

  it("refuses to start without a secret unless TICKQ_INSECURE", async () => {
    await expect(startServer({ redisUrl: redisUrl(), jobs: {}, port: 0 })).rejects.toThrow(/TICKQ_SECRET/);
  });

  it("refuses a REDIS_URL of another scheme, naming the REST variables for an http:// one", async () => {
    await expect(startServer({ redisUrl: "http://127.0.0.1:7101", jobs: {}, port: 0, insecure: true })).rejects.toThrow(
      /REDIS_URL must start with redis:\/\/ .*not http:\/\/; .*UPSTASH_REDIS_REST_URL/,
    );
  });

  it("refuses a REDIS_URL whose scheme lost its colon or a slash, never echoing the password", async () => {
    for (const [redisUrl, start] of [
      ["rediss//:pw-0123@127.0.0.1:7101", 'starts with "rediss//", not "rediss://"'],
      ["redis:/127.0.0.1:7101", 'starts with "redis:/", not "redis://"'],
    ] as const) {
      const started = startServer({ redisUrl, jobs: {}, port: 0, insecure: true });
      await expect(started).rejects.toThrow(`REDIS_URL ${start}: write it as redis://host:6379 (rediss:// for TLS)`);
      await expect(started).rejects.not.toThrow(/pw-0123/);
    }
  });

  it("serves the app over HTTP and ticks by itself every interval", async () => {
    const ran: number[] = [];
    const jobs = { count: (args: [number]) => void ran.push(args[0]) };
    const server = await startServer({
      redisUrl: redisUrl(),
      jobs,
      prefix: h.prefix,
      port: 0,
      secret: "abc-secret-for-tests",
      tickEveryMs: 50,
      tick: { budgetMs: 1_000 },
    });
    try {
      const tq = h.make(jobs);
      const unauthorized = await fetch(`${server.url}/stats`);
      expect(unauthorized.status).toBe(401);
      const health = await fetch(`${server.url}/health`);
      expect(await health.json()).toMatchObject({ ok: true });
      const marker = Date.now();
      await tq.enqueue("count", [marker]);
      for (let i = 0; i < 40 && !ran.includes(marker); i++) await sleep(50);
      expect(ran).toContain(marker);
      const tick = await fetch(`${server.url}/tick`, {
        method: "POST",
        headers: { Authorization: "Bearer abc-secret-for-tests" },
      });
      expect(tick.status).toBe(200);
      expect(await tick.json()).toHaveProperty("tickId");
    } finally {
      await server.close();
    }
  });

  it("runs the workflows it is given: a run started over POST /workflows/:name completes on its ticks", async () => {
    const workflows = {
      onboard: {
        run: async (input: { user: string }, step: WorkflowStep) => {
          const greeting = await step.run("greet", () => `hello ${input.user}`);
          return step.run("shout", () => greeting.toUpperCase());
        },
      },
    };
    const server = await startServer({
      redisUrl: redisUrl(),
      jobs: {},
      workflows,
      prefix: h.prefix,
      port: 0,
      secret: "abc-secret-for-tests",
      tickEveryMs: 50,
      tick: { budgetMs: 1_000 },
    });
    try {
      const auth = { Authorization: "Bearer abc-secret-for-tests", "content-type": "application/json" };
      const started = await fetch(`${server.url}/workflows/onboard`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ input: { user: "ada" } }),
      });
      expect(started.status).toBe(201);
      const { id } = (await started.json()) as { id: string };
      let run: { status?: string; output?: unknown } = {};
      for (let i = 0; i < 100 && run.status !== "completed"; i++) {
        await sleep(50);
        run = await (await fetch(`${server.url}/workflows/${id}`, { headers: auth })).json();
      }
      expect(run).toMatchObject({ status: "completed", output: "HELLO ADA" });
    } finally {
      await server.close();
    }
  });

  it("refuses an option neither it nor createTickq knows, naming it, before taking a port", async () => {
    const options = { redisUrl: redisUrl(), jobs: {}, port: 0, insecure: true, workflow: {} };
    await expect(startServer(options as Parameters<typeof startServer>[0])).rejects.toThrow(
      /unknown option "workflow"/,
    );
  });
});
