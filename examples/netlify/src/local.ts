// Runs the two functions here with Netlify's function signature (a Request and a Context): a signup
// through the app function, then a run of the scheduled one. `npm run local` with
// UPSTASH_REDIS_REST_URL and _TOKEN (`npx tickq redis-http` serves them locally) and TICKQ_SECRET.
import type { Context } from "@netlify/functions";
import app from "../netlify/functions/tickq.js";
import tick from "../netlify/functions/tick.js";

/** The Context fields a function reads here; the rest are Netlify's own. */
function contextFor(pending: Promise<unknown>[]): Context {
  return {
    waitUntil: (promise: Promise<unknown>) => void pending.push(promise),
    ip: "127.0.0.1",
    requestId: "local",
  } as unknown as Context;
}

const pending: Promise<unknown>[] = [];
const signup = await app(
  new Request("http://localhost:8888/api/signup", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "ada@example.com" }),
  }),
  contextFor(pending),
);
console.log(`example: signup answered ${signup.status} ${await signup.text()}`);
await Promise.all(pending);
console.log(`example: the kicked tick ended (${pending.length} in waitUntil)`);
const ticked = await tick(
  new Request("http://localhost:8888/.netlify/functions/tick", { method: "POST" }),
  contextFor([]),
);
console.log(`example: scheduled run answered ${await ticked.text()}`);
process.exit(0);
