// examples/netlify, run as its README says (`npm run local`: tsx src/local.ts), which calls its two
// functions with Netlify's signature (a Request and a Context): a signup through the app function, whose
// kicked tick runs in context.waitUntil, then the scheduled function. Redis over HTTP: the local REST server.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { repoRoot } from "../../../scripts/tickq-source.mjs";
import { exampleDir, exampleTsconfig } from "../../helpers/examples.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

describe("examples/netlify with Netlify's function signature", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("example-netlify");
  afterAll(async () => {
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("answers the signup with 201, runs its job in context.waitUntil, then ticks on the schedule", async () => {
    const tsconfig = exampleTsconfig("netlify");
    const run = spawnSync(
      join(repoRoot, "node_modules", ".bin", "tsx"),
      ["--tsconfig", tsconfig.path, "src/local.ts"],
      {
        cwd: exampleDir("netlify"),
        env: {
          ...process.env,
          UPSTASH_REDIS_REST_URL: inject("restUrl"),
          UPSTASH_REDIS_REST_TOKEN: inject("restToken"),
          TICKQ_PREFIX: prefix,
          TICKQ_SECRET: "netlify-example-secret-0",
        },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    tsconfig.remove();
    const output = run.stdout + run.stderr;
    expect(run.status, output).toBe(0);
    expect(output).toMatch(/example: signup answered 201 \{"welcome":"on its way","jid":"\w+"\}/);
    expect(output).toMatch(/example: the kicked tick ended \(1 in waitUntil\)/);
    expect(output).toContain("welcome email sent to ada@example.com");
    // The job ran once, in the kicked tick: the scheduled run found nothing left.
    expect(output).toMatch(/example: scheduled run answered \{"ticks":1,"succeeded":0,"more":false\}/);
    expect(Number(await redis.get(`${prefix}stat:processed`))).toBe(1);
  });
});
