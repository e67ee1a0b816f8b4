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
    cron: "src/schedules/cron.ts",
    "adapters/ioredis": "adapters/ioredis.ts",
    "adapters/upstash": "adapters/upstash.ts",
    "adapters/rest": "adapters/rest.ts",
    app: "functions/app.ts",
    cloudflare: "functions/cloudflare/worker.ts",
    vercel: "functions/vercel/handler.ts",
    dashboard: "functions/dashboard/index.ts",
  },
  platform: "neutral",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
});

await build({
  ...shared,
  entryPoints: { cli: "functions/cli/main.ts", node: "functions/node/index.ts" },
  platform: "node",
  target: "node20",
  splitting: true,
  chunkNames: "chunks/node-[name]-[hash]",
  define: { TICKQ_VERSION: JSON.stringify(version) },
});
