// The example Worker bundled as scripts/build-functions.mjs bundles it
// (esbuild, ESM, minified, workerd conditions), kept in memory: test files
// running at once never read a dist/functions/worker.js another is writing.
import { build } from "esbuild";

export async function workerBundle(entry = "functions/cloudflare/example.ts"): Promise<string> {
  const out = await build({
    entryPoints: [entry], bundle: true, format: "esm", minify: true, platform: "browser",
    conditions: ["workerd", "worker", "browser"], target: "es2022", write: false, logLevel: "warning",
  });
  return out.outputFiles[0]!.text;
}
