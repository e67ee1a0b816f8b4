// Time from installing an example, as a new user would, to its first job run locally
// (`npm run bench:first-job`): for each example, a fresh copy outside the checkout, `tickq` from the
// packed tarball (`npm pack`, as a published package installs), the README's install (npm, or
// `bun install`; Deno fetches its npm: imports on the first run) with an empty cache, then the README's
// run command and a signup, until the example prints the job's line.
//   --examples bun,deno,lambda,netlify,express,fastify,node,nextjs   --cache fresh|machine   --timeout-s 600
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { repoRoot } from "../scripts/tickq-source.mjs";
import { findRedis, freePort } from "../src/platforms/node/find-redis.js";
import { startUpstashLocal } from "../tools/upstash-local/server.js";
import { recipes } from "./first-job/recipes.js";
import { firstJob, type FirstJobRow } from "./first-job/run-example.js";
import { cleanUp } from "./serverless/latency-node.js";

const { values } = parseArgs({
  options: {
    examples: { type: "string", default: recipes.map((r) => r.name).join(",") },
    cache: { type: "string", default: "fresh" },
    "timeout-s": { type: "string", default: "600" },
  },
});
const asked = values.examples.split(",");
const unknown = asked.filter((name) => !recipes.some((r) => r.name === name));
if (unknown.length)
  throw new Error(`--examples: no example ${unknown.join(", ")}; known: ${recipes.map((r) => r.name)}`);
if (values.cache !== "fresh" && values.cache !== "machine") throw new Error("--cache is fresh or machine");

const work = mkdtempSync(join(tmpdir(), "tickq-first-job-"));
process.stdout.write("packing tickq (npm pack builds dist/ first)…\n");
const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], {
  cwd: repoRoot,
  encoding: "utf8",
});
const tarball = join(work, packed.trim().split("\n").at(-1)!);
execFileSync("tar", ["-xzf", tarball, "-C", work]);
const binDir = join(work, "bin");
mkdirSync(binDir);
for (const tool of ["bun", "deno"]) symlinkSync(join(repoRoot, "node_modules", ".bin", tool), join(binDir, tool));

const redis = await findRedis();
const rest = await startUpstashLocal({ redisUrl: redis.url, token: "first-job-token-0123456789" });
const rows: FirstJobRow[] = [];
try {
  for (const recipe of recipes.filter((r) => asked.includes(r.name))) {
    process.stdout.write(`examples/${recipe.name}: install, run, first job…\n`);
    const prefix = `bench:first-job-${recipe.name}-${Date.now()}:`;
    const tools = {
      examples: join(repoRoot, "examples"),
      tarball,
      unpacked: join(work, "package"),
      binDir,
      freshCache: values.cache === "fresh",
      timeoutMs: Number(values["timeout-s"]) * 1000,
    };
    try {
      rows.push(await firstJob(recipe, tools, { redisUrl: redis.url, prefix, rest, port: await freePort() }));
    } finally {
      await cleanUp(redis.url, prefix);
    }
  }
} finally {
  await rest.close();
  await redis.stop();
  rmSync(work, { recursive: true, force: true });
}

console.log(
  `\nFrom install to the first job, each example a fresh copy with tickq from its tarball, ${values.cache === "fresh" ? "an empty package cache" : "the machine's package cache"}`,
);
console.table(
  rows.map((r) => ({
    example: r.example,
    "install s": r.installSeconds.toFixed(1),
    "run to first job s": r.runSeconds.toFixed(1),
    "total s": (r.installSeconds + r.runSeconds).toFixed(1),
  })),
);
process.exit(0);
