// npm run build:functions: bundles the example Worker
// (examples/cloudflare-worker) and the Vercel example's tickq function with
// esbuild (ESM, minified; scripts/example-builds.mjs) into dist/functions/,
// prints each bundle's size, raw and gzipped, then the dashboard's own weight
// (the Worker bundled again with `dashboard()` stubbed out, as a deployment
// that leaves it out ships it), then the Worker's cold start in workerd
// (scripts/cold-start.mjs). `--measure`: the sizes only, writing nothing (the
// size tests: test/integration/package/worker-bundle-size.test.ts holds the Worker to its budget).
// `--runs N`: fresh starts for the cold start's medians (default 5).
import { build } from "esbuild";
import { mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { measureColdStart } from "./cold-start.mjs";
import { vercelBuildOptions, workerBuildOptions } from "./example-builds.mjs";

const { values: flags } = parseArgs({
  options: { measure: { type: "boolean", default: false }, runs: { type: "string", default: "5" } },
});

/** Resolves `tickq/dashboard` to a module whose `dashboard()` returns undefined: the app then mounts nothing. */
const withoutDashboard = {
  name: "without-dashboard",
  setup(b) {
    b.onResolve({ filter: /^tickq\/dashboard$/ }, (args) => ({ path: args.path, namespace: "no-dashboard" }));
    const stub = { contents: "export const dashboard = () => undefined;", loader: "js" };
    b.onLoad({ filter: /.*/, namespace: "no-dashboard" }, () => stub);
  },
};

const bundle = async (options) => (await build(options)).outputFiles[0].contents;
const kb = (n) => `${(n / 1024).toFixed(2)} KB`;
const ms = (n) => `${Math.round(n)} ms`;
const gz = (code) => gzipSync(code).length;

if (!flags.measure) mkdirSync("dist/functions", { recursive: true });
const bundles = { worker: await bundle(workerBuildOptions()), vercel: await bundle(vercelBuildOptions()) };
for (const [name, code] of Object.entries(bundles)) {
  const outfile = `dist/functions/${name}.js`;
  if (!flags.measure) writeFileSync(outfile, code);
  console.log(`${outfile}: ${kb(code.length)} raw, ${kb(gz(code))} gzipped`);
}
const worker = gz(bundles.worker);
const without = gz(await bundle(workerBuildOptions(undefined, [withoutDashboard])));
const dashboard = worker - without;
console.log(`dashboard: ${kb(dashboard)} gzipped (example Worker ${kb(worker)} with it, ${kb(without)} without)`);

if (flags.measure) {
  console.log(`sizes-bytes ${JSON.stringify({ worker, workerWithoutDashboard: without, dashboard })}`);
} else {
  const c = await measureColdStart(new TextDecoder().decode(bundles.worker), { runs: Number(flags.runs) });
  console.log(`cold start of the example Worker in workerd (Miniflare), median of ${c.runs} runs:`);
  const copies = `${c.copies} copies started beside ${c.copies} empty Workers`;
  console.log(`  global scope: ${ms(c.globalScope)} a start (${copies})`);
  const others = `the second ${ms(c.secondRequest)}; an empty Worker's first ${ms(c.emptyFirstRequest)}`;
  console.log(`  first request (GET ${c.path}): ${ms(c.firstRequest)} (${others})`);
}
