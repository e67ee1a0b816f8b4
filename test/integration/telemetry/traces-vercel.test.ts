// Traces from the Vercel function (src/platforms/vercel/handler.ts): a
// function may be frozen as soon as it answers, so every span tickq opens
// for a request ends before its response is returned, or inside the promise
// it hands to waitUntil (a kicked tick), never after. Over the local
// Upstash-compatible server, the Vercel function's Redis.
import { beforeEach, describe, expect, it } from "vitest";
import { tickqVercel } from "../../../src/platforms/vercel/handler.js";
import { adapterCase, testEndpoints } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { otel, registerOtel } from "../../helpers/otel.js";

const world = registerOtel();
const PRODUCER = 3;
const CONSUMER = 4;
const SECRET = "vercel-traces-s3cret";
const CRON = "vercel-traces-cron-s3cret";
/** An OpenTelemetry time ([seconds, nanoseconds] since the epoch) in ms. */
const msOf = ([sec, nanos]: [number, number]) => sec * 1000 + nanos / 1e6;

describe("traces from the Vercel function", () => {
  const h = useHarness(adapterCase("upstash"), "vercel-traces");
  beforeEach(() => world.exporter.reset());

  const setup = (kick: boolean) => {
    const { restUrl, restToken } = testEndpoints();
    const handed: Promise<unknown>[] = [];
    const handler = tickqVercel({
      jobs: { email: () => {} },
      telemetry: { otel },
      kick,
      waitUntil: (promise) => void handed.push(promise),
      env: {
        UPSTASH_REDIS_REST_URL: restUrl,
        UPSTASH_REDIS_REST_TOKEN: restToken,
        TICKQ_SECRET: SECRET,
        CRON_SECRET: CRON,
        TICKQ_PREFIX: h.prefix,
      },
    });
    return { handler, handed };
  };
  const post = (body: unknown) =>
    new Request("https://example.vercel.app/api/jobs", {
      method: "POST",
      headers: { Authorization: `Bearer ${SECRET}` },
      body: JSON.stringify(body),
    });
  const tickRequest = () =>
    new Request("https://example.vercel.app/api/tick", { headers: { Authorization: `Bearer ${CRON}` } });

  it("ends the enqueue's span before POST /api/jobs answers, and the tick's spans before GET /api/tick answers", async () => {
    const { handler, handed } = setup(false);
    const enqueued = await handler.POST(post({ name: "email", args: ["a"] }));
    expect(enqueued.status).toBe(201);
    const { jid } = (await enqueued.json()) as { jid: string };
    const send = world.spans().find((s) => s.kind === PRODUCER);
    expect(send?.attributes["messaging.message.id"]).toBe(jid);

    const ticked = await handler.GET(tickRequest());
    expect(ticked.status).toBe(200);
    expect(await ticked.json()).toMatchObject({ succeeded: 1 });
    // Read as the response came back: nothing is left to end later.
    const run = world.spans().find((s) => s.kind === CONSUMER);
    expect(run?.attributes["messaging.message.id"]).toBe(jid);
    expect(run!.spanContext().traceId).toBe(send!.spanContext().traceId);
    expect(world.spans().some((s) => s.name === "tick")).toBe(true);
    expect(handed).toEqual([]);
  });

  it("ends a kicked tick's spans inside the promise it hands to waitUntil, in the trace of the enqueue", async () => {
    const { handler, handed } = setup(true);
    const enqueued = await handler.POST(post({ name: "email", args: ["b"] }));
    expect(enqueued.status).toBe(201);
    const { jid } = (await enqueued.json()) as { jid: string };
    expect(handed.length).toBeGreaterThan(0);
    await Promise.all(handed);
    const settledAt = performance.timeOrigin + performance.now();
    const spans = world.spans();
    const send = spans.find((s) => s.kind === PRODUCER)!;
    const run = spans.find((s) => s.kind === CONSUMER && s.attributes["messaging.message.id"] === jid);
    expect(run?.spanContext().traceId).toBe(send.spanContext().traceId);
    expect(spans.some((s) => s.name === "tick")).toBe(true);
    for (const span of spans) expect(msOf(span.endTime)).toBeLessThanOrEqual(settledAt + 1);
    // And nothing ends once waitUntil's promises have settled.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(world.spans()).toHaveLength(spans.length);
  });
});
