// Traces on a Cloudflare Worker (Miniflare, over the local Upstash-compatible
// server): a job enqueued through the Worker, and one enqueued by another
// process (this one), both run by the Worker's cron tick in the trace of
// their enqueue; the tick's spans end inside scheduled(), flushed before it resolves.
import { describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { adapterCase } from "../../helpers/adapters.js";
import { otel, registerOtel } from "../../helpers/otel.js";
import { useWorkerInMiniflare } from "../../helpers/worker-in-miniflare.js";

const SECRET = "traces-worker-s3cret";
const world = registerOtel();

interface WorkerSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  jid: string | null;
}

describe("traces on a Worker (Miniflare)", () => {
  const worker = useWorkerInMiniflare("traces-worker", { TICKQ_SECRET: SECRET }, "test/fixtures/traced-worker.ts");

  it("runs jobs in the trace of their enqueue, made in the Worker or in another process", async () => {
    const res = await worker.mf.dispatchFetch("https://worker.test/jobs", {
      method: "POST",
      headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "email", args: ["a"] }),
    });
    expect(res.status).toBe(201);
    const { jid: inWorker } = (await res.json()) as { jid: string };
    const opened = adapterCase("rest").open();
    const here = createTickq({
      redis: opened.adapter,
      prefix: worker.prefix,
      jobs: { email: () => {} },
      telemetry: { otel },
    });
    const fromNode = await here.enqueue("email", ["b"]);
    await opened.close();
    // The SDK's world is shared by the files of this process: pick this enqueue's span by its jid.
    const nodeSend = world
      .spans()
      .find((s) => s.kind === 3 && s.attributes["messaging.message.id"] === fromNode)!
      .spanContext();

    // Miniflare's Fetcher type leaves out scheduled(), which it implements
    const fetcher = (await worker.mf.getWorker()) as unknown as {
      scheduled(event: { cron: string }): Promise<{ outcome: string }>;
    };
    const scheduled = await fetcher.scheduled({ cron: "* * * * *" });
    expect(scheduled.outcome).toBe("ok");
    const spans = (await (await worker.mf.dispatchFetch("https://worker.test/test/spans")).json()) as WorkerSpan[];
    const workerSend = spans.find((s) => s.kind === 3 && s.jid === inWorker)!;
    const runOf = (jid: string) => spans.find((s) => s.kind === 4 && s.jid === jid);
    expect(runOf(inWorker)).toMatchObject({
      name: "process default",
      traceId: workerSend.traceId,
      parentSpanId: workerSend.spanId,
    });
    expect(runOf(fromNode)).toMatchObject({
      name: "process default",
      traceId: nodeSend.traceId,
      parentSpanId: nodeSend.spanId,
    });
    expect(spans.some((s) => s.name === "tick")).toBe(true);
  });
});
