// npm run build: the library's ESM (esbuild, one file per entry, bundling
// only our own code) and its declarations (tsc). Runs on install (prepare),
// so a project that depends on this folder can import it straight away.
import { build } from "esbuild";

const entries = {
  index: "src/index.ts",
  "adapters/ioredis": "adapters/ioredis.ts",
  "adapters/upstash": "adapters/upstash.ts",
  app: "functions/app.ts",
  cloudflare: "functions/cloudflare/worker.ts",
  vercel: "functions/vercel/handler.ts",
};

await build({
  entryPoints: entries,
  outdir: "dist",
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  packages: "external",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
});
