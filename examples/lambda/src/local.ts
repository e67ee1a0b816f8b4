// Runs the function here, through lambda-local (Lambda's invocation, context and timeout, in-process):
// a Function URL event POSTing a signup, then a scheduled tick. `npm run local` (Redis 7 at REDIS_URL,
// default redis://127.0.0.1:6379; TICKQ_SECRET set).
import { readFileSync } from "node:fs";
import lambdaLocal from "lambda-local";
import { handler } from "./handler.js";

const event = (name: string) => JSON.parse(readFileSync(new URL(`../events/${name}.json`, import.meta.url), "utf8"));

process.env.REDIS_URL ??= "redis://127.0.0.1:6379";
for (const name of ["signup", "tick"]) {
  const answer = await lambdaLocal.execute({
    event: event(name),
    lambdaFunc: { handler },
    lambdaHandler: "handler",
    timeoutMs: 30_000,
    verboseLevel: 0,
  });
  console.log(`example: ${name} answered ${JSON.stringify(answer)}`);
}
process.exit(0);
