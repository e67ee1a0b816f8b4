// tickq/lambda's handler, invoked with committed event fixtures written from @types/aws-lambda's shapes
// (a Function URL's HTTP event, an EventBridge rule's Scheduled Event, EventBridge Scheduler's input),
// directly and through lambda-local (Lambda's own invocation and context, in-process).
import { readFileSync } from "node:fs";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, ScheduledEvent } from "aws-lambda";
import lambdaLocal from "lambda-local";
import { afterAll, describe, expect, it } from "vitest";
import { tickqLambda } from "../../../src/platforms/lambda/index.js";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../fixtures/lambda/${name}.json`, import.meta.url), "utf8")) as T;
const signupEvent = fixture<APIGatewayProxyEventV2>("function-url-post");
const statsEvent = fixture<APIGatewayProxyEventV2>("function-url-get-stats");
const ruleEvent = fixture<ScheduledEvent>("eventbridge-scheduled");
const schedulerInput = fixture<{ tickq: "tick" }>("scheduler-input");

const SECRET = "lambda-test-secret-0123";
/** A Lambda context with `ms` left. */
const contextWith = (ms: number) => ({ getRemainingTimeInMillis: () => ms });

describe("tickq/lambda", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("lambda");
  const sent: string[] = [];
  const handler = tickqLambda({
    redis: ioredisAdapter(redis),
    env: { TICKQ_SECRET: SECRET, TICKQ_PREFIX: prefix },
    jobs: { sendWelcomeEmail: ([to]: [string]) => void sent.push(to) },
    routes: (app) => {
      app.post("/signup", async (c) => {
        const { email } = (await c.req.json()) as { email: string };
        return c.json({ jid: await c.var.tq.enqueue("sendWelcomeEmail", [email], { kick: true }) }, 201);
      });
    },
  });
  afterAll(async () => {
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("answers a Function URL event with the app, and its kicked tick has run the job before the handler returns", async () => {
    const answer = (await handler(signupEvent, contextWith(10_000))) as APIGatewayProxyStructuredResultV2;
    expect(answer.statusCode).toBe(201);
    expect(JSON.parse(answer.body!)).toHaveProperty("jid");
    // Lambda freezes the process once the handler returns: the kick is not left to run after it.
    expect(sent).toEqual(["ada@example.com"]);
  });

  it("serves tickq's routes behind the secret", async () => {
    expect(((await handler(statsEvent, contextWith(10_000))) as APIGatewayProxyStructuredResultV2).statusCode).toBe(
      401,
    );
    const authorized = { ...statsEvent, headers: { ...statsEvent.headers, authorization: `Bearer ${SECRET}` } };
    const answer = (await handler(authorized, contextWith(10_000))) as APIGatewayProxyStructuredResultV2;
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body!)).toHaveProperty("processed");
  });

  it.each([
    ["an EventBridge rule's Scheduled Event", ruleEvent],
    ['EventBridge Scheduler\'s input { "tickq": "tick" }', schedulerInput],
  ])("ticks on %s, running what waits", async (_what, event) => {
    await handler.tickq().enqueue("sendWelcomeEmail", ["grace@example.com"], { kick: false });
    const answer = await handler(event, contextWith(5_000));
    expect(answer).toMatchObject({ succeeded: 1, more: false });
    expect(sent.at(-1)).toBe("grace@example.com");
  });

  it("a scheduled invocation with less time left than its margin ticks not at all", async () => {
    await handler.tickq().enqueue("sendWelcomeEmail", ["late@example.com"], { kick: false });
    expect(await handler(schedulerInput, contextWith(900))).toEqual({ ticks: 0, succeeded: 0, more: false });
    expect(sent).not.toContain("late@example.com");
    expect(await handler(schedulerInput, contextWith(5_000))).toMatchObject({ succeeded: 1 });
  });

  it("refuses an event that is neither HTTP nor a tick, naming the two it takes and where other events go", async () => {
    const refused = handler({ Records: [] }, contextWith(5_000));
    await expect(refused).rejects.toThrow(
      /neither HTTP .* nor a tick \(\{ "tickq": "tick" \} or an EventBridge Scheduled Event\)/,
    );
    await expect(refused).rejects.toThrow(
      /in a handler of your own that passes HTTP and ticks on to this one.*handler\.tickq\(\)/,
    );
  });

  it("runs under lambda-local's invocation, for HTTP and for a tick", async () => {
    const http = (await lambdaLocal.execute({
      event: signupEvent,
      lambdaFunc: { handler },
      lambdaHandler: "handler",
      timeoutMs: 10_000,
      verboseLevel: 0,
    })) as APIGatewayProxyStructuredResultV2;
    expect(http.statusCode).toBe(201);
    await handler.tickq().enqueue("sendWelcomeEmail", ["local@example.com"], { kick: false });
    const tick = await lambdaLocal.execute({
      event: schedulerInput,
      lambdaFunc: { handler },
      lambdaHandler: "handler",
      timeoutMs: 10_000,
      verboseLevel: 0,
    });
    expect(tick).toMatchObject({ succeeded: 1, more: false });
    expect(sent).toContain("local@example.com");
  });
});

describe("tickq/lambda without Redis settings", () => {
  it("answers 503 to HTTP and fails a tick, naming the variables to set", async () => {
    const handler = tickqLambda({ env: { TICKQ_SECRET: SECRET }, jobs: {} });
    const errors: unknown[] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.join(" "));
    try {
      const answer = (await handler(statsEvent, contextWith(5_000))) as APIGatewayProxyStructuredResultV2;
      expect(answer.statusCode).toBe(503);
      await expect(handler(schedulerInput, contextWith(5_000))).rejects.toThrow(/cannot start/);
    } finally {
      console.error = error;
    }
    expect(errors.join("\n")).toMatch(
      /UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN in the function's environment/,
    );
  });

  it("with only REDIS_URL set, says the handler does not read it and how to pass Redis over TCP", async () => {
    const password = "hunter2-lambda-password";
    const handler = tickqLambda({
      env: { TICKQ_SECRET: SECRET, REDIS_URL: `redis://:${password}@10.0.0.5:6379` },
      jobs: {},
    });
    const errors: unknown[] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.join(" "));
    try {
      await expect(handler(schedulerInput, contextWith(5_000))).rejects.toThrow(/cannot start/);
    } finally {
      console.error = error;
    }
    const logged = errors.join("\n");
    expect(logged).toMatch(/REDIS_URL is set, but this entry does not read it/);
    expect(logged).toContain("redis: ioredisAdapter(new Redis(process.env.REDIS_URL))");
    expect(logged).not.toContain(password);
  });
});
