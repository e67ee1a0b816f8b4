// npm run build: the library's ESM (esbuild, one file per entry, bundling
// only our own code) and its declarations (tsc). Runs on install (prepare),
// so a project that depends on this folder can import it straight away.
// The Node-only entries (the CLI, tickq/node) are built for Node apart, so
// the runtime-neutral ones never see node: imports.
import { build } from "esbuild";
import { readFileSync } from "node:fs";

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

const shared = {
  outdir: "dist",
  bundle: true,
  format: "esm",
  target: "es2022",
  packages: "external",
  logLevel: "warning",
};

await build({
  ...shared,
  entryPoints: {
    index: "src/index.ts",
    cron: "src/recurring/cron.ts",
    "adapters/ioredis": "src/redis/ioredis.ts",
    "adapters/upstash": "src/redis/upstash.ts",
    "adapters/rest": "src/redis/rest.ts",
    "adapters/node-redis": "src/redis/node-redis.ts",
    app: "src/http/app.ts",
    cloudflare: "src/platforms/cloudflare/worker.ts",
    vercel: "src/platforms/vercel/handler.ts",
    dashboard: "src/dashboard/index.ts",
  },
  platform: "neutral",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
});

await build({
  ...shared,
  entryPoints: { cli: "src/cli/main.ts", node: "src/platforms/node/index.ts" },
  platform: "node",
  target: "node20",
  splitting: true,
  chunkNames: "chunks/node-[name]-[hash]",
  define: { TICKQ_VERSION: JSON.stringify(version) },
});
