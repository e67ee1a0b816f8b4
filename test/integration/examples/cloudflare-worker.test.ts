// examples/cloudflare-worker bundled as wrangler deploys it (tickq resolved to
// this repository's sources) and run in Miniflare against the local
// Upstash-compatible server: a signup through its own route runs the welcome
// email job in the request's waitUntil, and its Cron Trigger ticks.
import { describe, expect, it } from "vitest";
import { processedUnder } from "../../helpers/examples.js";
import { useWorkerInMiniflare } from "../../helpers/worker-in-miniflare.js";

describe("examples/cloudflare-worker", () => {
  const SECRET = "worker-example-secret-0123";
  const worker = useWorkerInMiniflare("example-worker", { TICKQ_SECRET: SECRET });
  const processed = (atLeast: number) => processedUnder(worker.redis, worker.prefix, atLeast);
  const post = (path: string, body: string, token?: string) => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    return worker.mf.dispatchFetch(`https://worker.test${path}`, { method: "POST", body, headers });
  };

  it("runs the welcome email of a POST /signup, kicked in the request's waitUntil", async () => {
    const res = await post("/signup", JSON.stringify({ email: "ada@example.com" }));
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ welcome: "on its way", jid: expect.any(String) });
    expect(await processed(1)).toBe(1);
    expect(await worker.redis.llen(`${worker.prefix}queue:default`)).toBe(0);
  });

  it("runs on its Cron Trigger what was enqueued without a kick", async () => {
    const before = await processed(0);
    const job = { name: "resizeImage", args: ["https://img.example/a.png", 200] };
    expect((await post("/jobs", JSON.stringify(job), SECRET)).status).toBe(201);
    expect(await worker.redis.llen(`${worker.prefix}queue:media`)).toBe(1);
    // Miniflare's Fetcher type leaves out scheduled(), which it implements
    type Scheduled = { scheduled(event: { cron: string }): Promise<{ outcome: string }> };
    const fetcher = (await worker.mf.getWorker()) as unknown as Scheduled;
    expect((await fetcher.scheduled({ cron: "* * * * *" })).outcome).toBe("ok");
    expect(await processed(before + 1)).toBe(before + 1);
    expect(await worker.redis.llen(`${worker.prefix}queue:media`)).toBe(0);
  });

  it("answers 400 to a signup without an email, and enqueues nothing", async () => {
    const res = await post("/signup", "{");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'send {"email": "you@example.com"}' });
    expect(await worker.redis.llen(`${worker.prefix}queue:default`)).toBe(0);
  });
});
