// Durable workflows on the Vercel function (src/platforms/vercel/handler.ts),
// over the local Upstash-compatible server as a Vercel function's Redis: a
// run started through POST /api/workflows/:name advances only on Vercel
// Cron's GET /api/tick (CRON_SECRET) — it sleeps on one tick, stays asleep on
// a tick before its wake time and completes on one after it; a run waiting
// for an event resumes on the tick after POST /api/events. A function holds
// nothing between requests, so this is all a workflow may rely on there.
import { describe, expect, it } from "vitest";
import { tickqVercel } from "../../../src/platforms/vercel/handler.js";
import { adapterCase, testEndpoints } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const SECRET = "workflow-vercel-s3cret";
const CRON = "workflow-vercel-cron-s3cret";
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface RunView {
  status: string;
  output?: unknown;
  steps: { name: string; status: string; attempts: number }[];
}

describe("a workflow on the Vercel function's cron", () => {
  const h = useHarness(adapterCase("upstash"), "wf-vercel");
  const setup = () => {
    const { restUrl, restToken } = testEndpoints();
    return tickqVercel({
      jobs: {},
      // No kick: a run must advance on the cron's ticks alone.
      kick: false,
      workflows: {
        nap: {
          run: async (input: { user: string }, step) => {
            const before = await step.run("before", () => `hello ${input.user}`);
            await step.sleep("nap", "1s");
            const after = await step.run("after", () => "awake");
            return { before, after };
          },
        },
        onboard: {
          run: async (input: { user: string }, step) => {
            const activated = await step.waitForEvent("activated", {
              event: "user.activated",
              match: input.user,
              timeout: "1h",
            });
            return { activated };
          },
        },
      },
      env: {
        UPSTASH_REDIS_REST_URL: restUrl,
        UPSTASH_REDIS_REST_TOKEN: restToken,
        TICKQ_SECRET: SECRET,
        CRON_SECRET: CRON,
        TICKQ_PREFIX: h.prefix,
      },
    });
  };
  type Handler = ReturnType<typeof setup>;
  const post = (handler: Handler, path: string, body: unknown) =>
    handler.POST(
      new Request(`https://example.vercel.app/api${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
  const cron = async (handler: Handler) => {
    const res = await handler.GET(
      new Request("https://example.vercel.app/api/tick", { headers: { Authorization: `Bearer ${CRON}` } }),
    );
    expect(res.status).toBe(200);
  };
  const read = async (handler: Handler, id: string) => {
    const res = await handler.GET(
      new Request(`https://example.vercel.app/api/workflows/${encodeURIComponent(id)}`, {
        headers: { Authorization: `Bearer ${SECRET}` },
      }),
    );
    expect(res.status).toBe(200);
    return (await res.json()) as RunView;
  };

  it("sleeps on one cron tick, stays asleep before its wake time and completes on a later tick", async () => {
    const handler = setup();
    const started = await post(handler, "/workflows/nap", { input: { user: "ada" }, id: "nap:ada" });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };
    expect(id).toBe("nap:ada");
    // Nothing runs until the cron ticks.
    expect((await read(handler, id)).steps).toEqual([]);

    await cron(handler);
    const asleep = await read(handler, id);
    expect(asleep.status).toBe("sleeping");
    expect(asleep.steps.map((s) => [s.name, s.status])).toEqual([
      ["before", "completed"],
      ["nap", "sleeping"],
    ]);

    // A tick before the wake time leaves it asleep and runs no step.
    await cron(handler);
    const still = await read(handler, id);
    expect(still.status).toBe("sleeping");
    expect(still.steps).toHaveLength(2);

    await pause(1_100);
    await cron(handler);
    const done = await read(handler, id);
    expect(done.status).toBe("completed");
    expect(done.output).toEqual({ before: "hello ada", after: "awake" });
    expect(done.steps.map((s) => [s.name, s.status, s.attempts])).toEqual([
      ["before", "completed", 1],
      ["nap", "completed", 1],
      ["after", "completed", 1],
    ]);
  }, 30_000);

  it("resumes a run waiting for an event on the cron tick after POST /api/events", async () => {
    const handler = setup();
    const started = await post(handler, "/workflows/onboard", { input: { user: "42" } });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };

    await cron(handler);
    const waiting = await read(handler, id);
    expect(waiting.status).toBe("waiting");
    expect(waiting.steps.map((s) => [s.name, s.status])).toEqual([["activated", "waiting"]]);

    // Another match resolves nothing; the run's own match resolves it once.
    const other = await post(handler, "/events", { event: "user.activated", match: "41", data: 1 });
    expect(other.status).toBe(200);
    expect(await other.json()).toEqual({ resolved: 0 });
    const sent = await post(handler, "/events", { event: "user.activated", match: "42", data: { plan: "pro" } });
    expect(sent.status).toBe(200);
    expect(await sent.json()).toEqual({ resolved: 1 });

    await cron(handler);
    const done = await read(handler, id);
    expect(done.status).toBe("completed");
    expect(done.output).toEqual({ activated: { plan: "pro" } });
    expect(done.steps.map((s) => [s.name, s.status])).toEqual([["activated", "completed"]]);
  }, 30_000);
});
