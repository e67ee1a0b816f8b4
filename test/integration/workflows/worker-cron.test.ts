// Durable workflows on a Cloudflare Worker (Miniflare, the Worker's own REST
// adapter over the local Upstash-compatible server): a run started through
// POST /workflows/:name sleeps on one Cron Trigger, stays asleep on a trigger
// before its time, and resumes and completes on a later one — no tick is held
// while it sleeps, so the Worker needs nothing but its cron.
import { describe, expect, it } from "vitest";
import { useWorkerInMiniflare } from "../../helpers/worker-in-miniflare.js";

const SECRET = "workflow-worker-s3cret";
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface RunView {
  status: string;
  output?: unknown;
  steps: { name: string; status: string; attempts: number }[];
}

describe("a workflow on a Worker's Cron Triggers (Miniflare)", () => {
  const worker = useWorkerInMiniflare("wf-worker", { TICKQ_SECRET: SECRET }, "test/fixtures/workflow-worker.ts");
  const call = (path: string, body?: unknown) =>
    worker.mf.dispatchFetch(`https://worker.test${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const cron = async () => {
    // Miniflare's Fetcher type leaves out scheduled(), which it implements
    const fetcher = (await worker.mf.getWorker()) as unknown as {
      scheduled(event: { cron: string }): Promise<{ outcome: string }>;
    };
    expect((await fetcher.scheduled({ cron: "* * * * *" })).outcome).toBe("ok");
  };
  const read = async (id: string) => {
    const res = await call(`/workflows/${encodeURIComponent(id)}`);
    expect(res.status).toBe(200);
    return (await res.json()) as RunView;
  };

  it("sleeps on one cron trigger and resumes and completes on a later one", async () => {
    const started = await call("/workflows/nap", { input: { user: "ada" }, id: "nap:ada" });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };
    expect(id).toBe("nap:ada");

    await cron();
    const asleep = await read(id);
    expect(asleep.status).toBe("sleeping");
    expect(asleep.steps.map((s) => [s.name, s.status])).toEqual([
      ["before", "completed"],
      ["nap", "sleeping"],
    ]);

    // a trigger before the wake time leaves it asleep and runs no step
    await cron();
    expect((await read(id)).status).toBe("sleeping");

    await pause(1_100);
    await cron();
    const done = await read(id);
    expect(done.status).toBe("completed");
    expect(done.output).toEqual({ before: "hello ada", after: "awake" });
    expect(done.steps.map((s) => [s.name, s.status, s.attempts])).toEqual([
      ["before", "completed", 1],
      ["nap", "completed", 1],
      ["after", "completed", 1],
    ]);
  }, 60_000);
});
