// tickq on AWS Lambda: one handler for HTTP events (a Function URL, API Gateway's HTTP API or REST
// API, an ALB), served by Hono's Lambda adapter, and for scheduled events, which tick. Lambda freezes
// the process once the handler returns, so a kicked tick runs before the response is returned: it is
// never dropped, and the response waits for it. Redis: any adapter, else Upstash's REST API from the env.
/**
 * tickq on AWS Lambda: `tickqLambda` answers HTTP events with the app and ticks on scheduled events.
 *
 * @module tickq/lambda
 */
import { handle, type LambdaEvent } from "hono/aws-lambda";
import type { JobRegistry, Tickq, TickReport } from "../../index.js";
import { tickUntilDone } from "../../http/drain.js";
import { buildEdge, credentialsOf, kicksByDefault, type Edge, type EdgeOptions } from "../../http/edge.js";
import { logError, UNAVAILABLE } from "../../http/errors.js";
import { backgroundWork } from "../../http/in-process.js";
import { restFromEnv } from "../../http/rest-from-env.js";
import type { ClientOf } from "../../http/throttle.js";
import { isTickEvent } from "./events.js";

export type { EventBridgeScheduledEvent, LambdaTickEvent, SchedulerTickInput } from "./events.js";

/** The part of Lambda's context tickq reads. */
export interface LambdaContextLike {
  /** Milliseconds left before Lambda stops the invocation. */
  getRemainingTimeInMillis(): number;
}

/** What a scheduled invocation answers: the ticks it ran. */
export interface LambdaTickResult {
  /** Ticks run. */
  ticks: number;
  /** Jobs that succeeded over them. */
  succeeded: number;
  /** Whether work was left when the budget ran out. */
  more: boolean;
}

/** What an HTTP event is answered with: Lambda's proxy result (a Function URL's, API Gateway's, an ALB's). */
export interface LambdaHttpAnswer {
  /** The HTTP status. */
  statusCode: number;
  /** The response headers (one value each). */
  headers?: Record<string, string>;
  /** Headers with several values (API Gateway v1 and the ALB). */
  multiValueHeaders?: Record<string, string[]>;
  /** `Set-Cookie` values (API Gateway v2 and Function URLs). */
  cookies?: string[];
  /** The body: text, or base64 when `isBase64Encoded`. */
  body: string;
  /** Whether `body` is base64. */
  isBase64Encoded?: boolean;
}

/**
 * Every {@link tickq!TickqOptions | TickqOptions} option, with `redis` optional (Upstash's REST API from
 * `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` unless given), the app's `kick`,
 * `maxParallel`, `tick`, `routes` and `dashboard`, and Lambda's own below.
 */
export type TickqLambdaOptions<J extends JobRegistry> = EdgeOptions<J> & {
  /** Where settings and secrets come from; default process.env (the function's environment variables). */
  env?: Record<string, string | undefined>;
  /** A scheduled invocation stops ticking this long before Lambda's own timeout; default 1,000 ms. */
  marginMs?: number;
  /** Called with each tick's report of a scheduled invocation. */
  onTick?: (report: TickReport) => void;
};

/** The caller's address as API Gateway, a Function URL or an ALB recorded it (the throttle's key). */
const lambdaClient: ClientOf = (c) => {
  const context = (c.env as { requestContext?: Record<string, unknown> } | undefined)?.requestContext;
  const http = context?.http as { sourceIp?: string } | undefined;
  const identity = context?.identity as { sourceIp?: string } | undefined;
  return http?.sourceIp ?? identity?.sourceIp;
};

/**
 * The function's handler: HTTP events are served by the app (your `routes`, `/tick`, `/jobs`, the
 * dashboard…); a scheduled event — EventBridge Scheduler's input `{ "tickq": "tick" }`, or an
 * EventBridge rule's `Scheduled Event` — ticks until no work is left or the invocation's time is
 * nearly spent.
 * @example
 * export const handler = tickqLambda({ jobs, kick: true });
 */
export function tickqLambda<J extends JobRegistry>(options: TickqLambdaOptions<J>) {
  const { env: given, marginMs = 1_000, onTick, ...rest } = options;
  const env = given ?? process.env;
  const background = backgroundWork();
  let built: { edge: Edge<J>; http: ReturnType<typeof handle> } | undefined;
  const build = () => {
    const edge = buildEdge(
      rest as EdgeOptions<J>,
      env,
      () => restFromEnv(env, "in the function's environment variables"),
      {
        waitUntil: background.waitUntil,
        clientOf: lambdaClient,
      },
    );
    return { edge, http: handle(edge.app) };
  };

  /** `event`: an HTTP event (Function URL, API Gateway v1 or v2, ALB) or a {@link LambdaTickEvent}. */
  async function handler(event: object, context: LambdaContextLike): Promise<LambdaHttpAnswer | LambdaTickResult> {
    try {
      built ??= build();
    } catch (error) {
      logError("the Lambda function cannot start", error, credentialsOf(env));
      if (isTickEvent(event)) throw new Error("tickq: the function cannot start: see the error logged above");
      return { statusCode: 503, headers: { "content-type": "application/json" }, body: JSON.stringify(UNAVAILABLE) };
    }
    const { edge, http } = built;
    if (isTickEvent(event)) {
      const budget = Math.max(0, context.getRemainingTimeInMillis() - marginMs);
      const reports = await tickUntilDone(edge.tickq as Tickq<JobRegistry>, budget, edge.tick, edge.fanOut);
      for (const report of reports) onTick?.(report);
      await background.settled();
      return {
        ticks: reports.length,
        succeeded: reports.reduce((n, r) => n + r.succeeded, 0),
        more: reports.at(-1)?.more ?? false,
      } satisfies LambdaTickResult;
    }
    if (!("requestContext" in event) && !("httpMethod" in event)) {
      throw new Error(
        'tickq: an event that is neither HTTP (a Function URL, API Gateway, an ALB) nor a tick ({ "tickq": "tick" } or an EventBridge Scheduled Event): ' +
          "take other events (SQS, S3…) in a handler of your own that passes HTTP and ticks on to this one, and enqueue through handler.tickq()",
      );
    }
    const response = await http(event as LambdaEvent, context as Parameters<typeof http>[1]);
    // Lambda freezes the process once this returns: kicked ticks and fan-out end first.
    await background.settled();
    return response as LambdaHttpAnswer;
  }

  return Object.assign(handler, {
    /** The function's tickq, kicking before the handler returns: for your own handlers in the same function. */
    tickq(): Tickq<J> {
      built ??= build();
      return built.edge.tickq.scope({
        waitUntil: background.waitUntil,
        kick: kicksByDefault(built.edge.settings, options.kick),
      });
    },
  });
}
