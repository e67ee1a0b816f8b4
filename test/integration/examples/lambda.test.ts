// examples/lambda, run as its README says (`npm run local`: tsx src/local.ts), which invokes the
// function through lambda-local with its committed events: a Function URL signup, then a scheduled tick.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../../scripts/tickq-source.mjs";
import { exampleDir, exampleTsconfig } from "../../helpers/examples.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";

describe("examples/lambda through lambda-local", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("example-lambda");
  afterAll(async () => {
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("answers the signup with 201 once its kicked tick ran the job, then ticks on the schedule's input", async () => {
    const tsconfig = exampleTsconfig("lambda");
    const run = spawnSync(
      join(repoRoot, "node_modules", ".bin", "tsx"),
      ["--tsconfig", tsconfig.path, "src/local.ts"],
      {
        cwd: exampleDir("lambda"),
        env: { ...process.env, REDIS_URL: redisUrl(), TICKQ_PREFIX: prefix, TICKQ_SECRET: "lambda-example-secret-01" },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    tsconfig.remove();
    const output = run.stdout + run.stderr;
    expect(run.status, output).toBe(0);
    expect(output).toMatch(/example: signup answered \{.*"statusCode":201/);
    // lambda-local shows the function's own lines, as CloudWatch would: the job's is among them.
    expect(output).toContain("welcome email sent to ada@example.com");
    // The job ran once, and not in the scheduled tick: the signup's kicked tick ran it before answering.
    expect(output).toMatch(/example: tick answered \{"ticks":1,"succeeded":0,"more":false\}/);
    expect(Number(await redis.get(`${prefix}stat:processed`))).toBe(1);
  });
});
