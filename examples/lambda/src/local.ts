// Runs the function here, through lambda-local (Lambda's invocation, context and timeout, in-process):
// a Function URL event POSTing a signup, then a scheduled tick. `npm run local` (Redis 7 at REDIS_URL,
// default redis://127.0.0.1:6379; TICKQ_SECRET set). lambda-local prints each invocation's start,
// the function's own lines (the job's among them) and its answer, as CloudWatch would.
import { readFileSync } from "node:fs";
import lambdaLocal from "lambda-local";

const event = (name: string) => JSON.parse(readFileSync(new URL(`../events/${name}.json`, import.meta.url), "utf8"));

// Before the handler's module is loaded: it reads REDIS_URL once, when it builds its adapter.
process.env.REDIS_URL ??= "redis://127.0.0.1:6379";
const { handler } = await import("./handler.js");
for (const name of ["signup", "tick"]) {
  const answer = await lambdaLocal.execute({
    event: event(name),
    lambdaFunc: { handler },
    lambdaHandler: "handler",
    timeoutMs: 30_000,
    verboseLevel: 3,
  });
  console.log(`example: ${name} answered ${JSON.stringify(answer)}`);
}
process.exit(0);
