// The package's entry points, written once: the build (scripts/build.mjs) and the API reference
// (typedoc.config.mjs) derive theirs from this list; test/unit/entries.test.ts checks package.json's
// `exports` and tsconfig.build.json's `files` against it. A new entry is one line here, then the
// two files the test names.
//   subpath   what a user imports, after "tickq" ("." is "tickq" itself)
//   out       the bundle under dist/, without ".js"
//   source    the module it is built from
//   platform  "neutral" (Workers, Vercel Edge, any runtime: no node: imports) or "node"

/** @type {{ subpath: string, out: string, source: string, platform: "neutral" | "node" }[]} */
export const ENTRIES = [
  { subpath: ".", out: "index", source: "src/index.ts", platform: "neutral" },
  { subpath: "./adapters/ioredis", out: "adapters/ioredis", source: "src/redis/ioredis.ts", platform: "neutral" },
  { subpath: "./adapters/upstash", out: "adapters/upstash", source: "src/redis/upstash.ts", platform: "neutral" },
  { subpath: "./adapters/rest", out: "adapters/rest", source: "src/redis/rest.ts", platform: "neutral" },
  {
    subpath: "./adapters/node-redis",
    out: "adapters/node-redis",
    source: "src/redis/node-redis.ts",
    platform: "neutral",
  },
  { subpath: "./cron", out: "cron", source: "src/recurring/cron.ts", platform: "neutral" },
  { subpath: "./app", out: "app", source: "src/http/app.ts", platform: "neutral" },
  { subpath: "./cloudflare", out: "cloudflare", source: "src/platforms/cloudflare/worker.ts", platform: "neutral" },
  { subpath: "./vercel", out: "vercel", source: "src/platforms/vercel/handler.ts", platform: "neutral" },
  { subpath: "./node", out: "node", source: "src/platforms/node/index.ts", platform: "node" },
  { subpath: "./lambda", out: "lambda", source: "src/platforms/lambda/index.ts", platform: "node" },
  { subpath: "./netlify", out: "netlify", source: "src/platforms/netlify/index.ts", platform: "neutral" },
  { subpath: "./bun", out: "bun", source: "src/platforms/bun/index.ts", platform: "neutral" },
  { subpath: "./deno", out: "deno", source: "src/platforms/deno/index.ts", platform: "neutral" },
  { subpath: "./express", out: "express", source: "src/platforms/express/index.ts", platform: "node" },
  { subpath: "./fastify", out: "fastify", source: "src/platforms/fastify/index.ts", platform: "node" },
  { subpath: "./next", out: "next", source: "src/platforms/next/index.ts", platform: "neutral" },
  { subpath: "./dashboard", out: "dashboard", source: "src/dashboard/index.ts", platform: "neutral" },
  { subpath: "./testing", out: "testing", source: "src/testing/index.ts", platform: "node" },
];

/** The CLI: a bin, not an export; built for Node with the node entries. */
export const CLI = { out: "cli", source: "src/cli/main.ts" };

/** esbuild's entryPoints for one platform: out → source. */
export const entryPointsOf = (platform) =>
  Object.fromEntries(ENTRIES.filter((e) => e.platform === platform).map((e) => [e.out, e.source]));

/** What package.json's `exports` must say for an entry. */
export const exportOf = (entry) => ({
  types: `./dist/${entry.source.replace(/\.ts$/, ".d.ts")}`,
  import: `./dist/${entry.out}.js`,
});
