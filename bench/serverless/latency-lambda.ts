// Enqueue-to-start latency of the Lambda handler (tickq/lambda) invoked through lambda-local, as
// examples/lambda's `npm run local` invokes it: a Function URL event POSTing /jobs with kick on, then
// the time until the job starts (in this process). On Lambda the kicked tick runs before the response,
// so each invocation returns after its job ran. Invocations are spaced 50–150 ms apart (a fixed seed).
import lambdaLocal from "lambda-local";
import { Redis } from "ioredis";
import { tickqLambda } from "../../src/platforms/lambda/index.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { seededRng } from "../chaos/rng.js";
import { cleanUp } from "./latency-node.js";
import { pause, type LatencyRow } from "./stats.js";

const SECRET = "bench-secret-0123456789";

/** A Function URL's POST, in the shape of @types/aws-lambda's APIGatewayProxyEventV2 (as test/fixtures/lambda/). */
function functionUrlPost(path: string, body: string) {
  const host = "abcdefghijklmnopqrstuvwxyz0123.lambda-url.eu-west-1.on.aws";
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: path,
    rawQueryString: "",
    headers: { "content-type": "application/json", authorization: `Bearer ${SECRET}`, host },
    requestContext: {
      accountId: "anonymous",
      apiId: "abcdefghijklmnopqrstuvwxyz0123",
      domainName: host,
      domainPrefix: "abcdefghijklmnopqrstuvwxyz0123",
      http: { method: "POST", path, protocol: "HTTP/1.1", sourceIp: "203.0.113.7", userAgent: "bench" },
      requestId: "bench",
      routeKey: "$default",
      stage: "$default",
      time: "29/Nov/2026:05:00:00 +0000",
      timeEpoch: 1795755600000,
    },
    body,
    isBase64Encoded: false,
  };
}

export async function lambdaLatency(redisUrl: string, samples: number): Promise<LatencyRow> {
  const started = new Map<number, number>();
  const prefix = `bench:latency-lambda-${Date.now()}:`;
  const redis = new Redis(redisUrl);
  const handler = tickqLambda({
    redis: ioredisAdapter(redis),
    prefix,
    kick: true,
    env: { TICKQ_SECRET: SECRET },
    jobs: { mark: ([id]: [number]) => void started.set(id, performance.now()) },
  });
  const random = seededRng(7);
  const sent = new Map<number, number>();
  try {
    for (let i = 0; i < samples; i++) {
      sent.set(i, performance.now());
      const answer = (await lambdaLocal.execute({
        event: functionUrlPost("/jobs", JSON.stringify({ name: "mark", args: [i] })),
        lambdaFunc: { handler },
        lambdaHandler: "handler",
        timeoutMs: 30_000,
        verboseLevel: 0,
      })) as { statusCode?: number };
      if (answer.statusCode !== 201) throw new Error(`POST /jobs answered ${JSON.stringify(answer)}`);
      if (!started.has(i)) throw new Error(`job ${i} had not started when its invocation returned`);
      await pause(50 + random() * 100);
    }
  } finally {
    redis.disconnect();
    await cleanUp(redisUrl, prefix);
  }
  return {
    runtime: "Lambda handler (lambda-local)",
    trigger: "kick before the response",
    samples: [...sent].map(([i, t]) => started.get(i)! - t),
  };
}
