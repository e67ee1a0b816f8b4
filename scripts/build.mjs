// npm run build: the library's ESM (esbuild, one file per entry, bundling
// only our own code) and its declarations (tsc). Runs on install (prepare),
// so a project that depends on this folder can import it straight away.
// The Node-only entries (the CLI, tickq/node) are built for Node apart, so
// the runtime-neutral ones never see node: imports. The entries: scripts/entries.mjs.
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { CLI, entryPointsOf } from "./entries.mjs";

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
  entryPoints: entryPointsOf("neutral"),
  platform: "neutral",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
});

await build({
  ...shared,
  entryPoints: { [CLI.out]: CLI.source, ...entryPointsOf("node") },
  platform: "node",
  target: "node20",
  splitting: true,
  chunkNames: "chunks/node-[name]-[hash]",
  define: { TICKQ_VERSION: JSON.stringify(version) },
});
