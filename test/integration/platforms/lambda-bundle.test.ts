// docs/deploy/lambda.md's esbuild command, run as written on a handler over ioredis, and the bundle it
// writes invoked in a plain Node process as Lambda loads it: ioredis is CommonJS and requires Node's
// modules, which an ESM bundle can only do through the command's banner.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";

const root = resolve(".");

/** The doc's `npx esbuild …` line and its continuation lines, as one shell command. */
function documentedCommand(): string {
  const page = readFileSync("docs/deploy/lambda.md", "utf8");
  const command = /^npx esbuild .*?(?:\\\n.*?)*$/m.exec(page)?.[0];
  if (!command) throw new Error("docs/deploy/lambda.md has no `npx esbuild` line");
  return command.replace(/^npx esbuild/, resolve("node_modules/.bin/esbuild"));
}

const handlerSource = `
import { Redis } from "ioredis";
import { ioredisAdapter } from "${root}/src/redis/ioredis.js";
import { tickqLambda } from "${root}/src/platforms/lambda/index.js";

export const handler = tickqLambda({
  redis: ioredisAdapter(new Redis(process.env.REDIS_URL)),
  jobs: { sendWelcomeEmail: async ([to]) => console.log("sent " + to) },
  routes: (app) => {
    app.post("/signup", async (c) => {
      const { email } = await c.req.json();
      return c.json({ jid: await c.var.tq.enqueue("sendWelcomeEmail", [email], { kick: true }) }, 201);
    });
  },
});
`;

// Lambda's Node runtime imports index.mjs and calls handler(event, context).
const invoke = `
import { readFileSync } from "node:fs";
const { handler } = await import(process.argv[1]);
const fixture = (name) => JSON.parse(readFileSync(process.argv[2] + "/" + name + ".json", "utf8"));
const context = { getRemainingTimeInMillis: () => 5000 };
const signup = await handler(fixture("function-url-post"), context);
const tick = await handler(fixture("scheduler-input"), context);
console.log(JSON.stringify({ status: signup.statusCode, tick }));
process.exit(0);
`;

describe("tickq/lambda bundled with the documented esbuild command", () => {
  const dir = resolve("node_modules/.cache/tickq-lambda-bundle", String(process.pid));
  const prefix = uniquePrefix("lambda-bundle");
  const redis = directRedis();
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("loads under Node as an ES module, over ioredis, and runs a signup's job", () => {
    mkdirSync(resolve(dir, "src"), { recursive: true });
    writeFileSync(resolve(dir, "src/handler.ts"), handlerSource);
    execFileSync("sh", ["-c", documentedCommand()], { cwd: dir, stdio: "pipe" });
    const out = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", invoke, resolve(dir, "dist/index.mjs"), resolve("test/fixtures/lambda")],
      {
        env: { ...process.env, REDIS_URL: redisUrl(), TICKQ_PREFIX: prefix, TICKQ_SECRET: "lambda-bundle-secret-0123" },
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(out).toContain("sent ada@example.com");
    expect(JSON.parse(out.trim().split("\n").at(-1) ?? "")).toMatchObject({ status: 201, tick: { more: false } });
  });
});
