// How the examples are bundled for measuring and testing, with `tickq`
// resolved to this repository's sources: the example Worker as wrangler
// deploys it (ESM, minified, workerd's conditions) and the Vercel project's
// tickq function as a Node bundle. One place, so `npm run build:functions`
// and the tests measure and run the same bytes.
import { tickqFromSource } from "./tickq-source.mjs";

export const EXAMPLE_WORKER = "examples/cloudflare-worker/src/index.ts";
export const EXAMPLE_VERCEL_FUNCTION = "examples/vercel/api/tickq.ts";

/** esbuild options for a Worker entry (default the example Worker); `plugins` run before tickq's resolver. */
export function workerBuildOptions(entry = EXAMPLE_WORKER, plugins = []) {
  return {
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    minify: true,
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    write: false,
    logLevel: "warning",
    metafile: true,
    plugins: [...plugins, tickqFromSource()],
  };
}

/** esbuild options for a Vercel Function on the Node runtime (default the example's tickq function). */
export function vercelBuildOptions(entry = EXAMPLE_VERCEL_FUNCTION) {
  return {
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    minify: true,
    platform: "node",
    target: "es2022",
    write: false,
    logLevel: "warning",
    plugins: [tickqFromSource()],
  };
}
