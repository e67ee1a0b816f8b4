// npm run build:functions: bundles the example Cloudflare Worker and Vercel
// Function with esbuild (ESM, minified) into dist/functions/, and prints
// each bundle's size, raw and gzipped — then the dashboard's own weight:
// the example Worker bundled again with `dashboard()` swapped for a stub
// (what a deployment that leaves it out ships), and the difference.
// `--measure`: print the sizes only, writing nothing (the size tests:
// test/bundle-size.test.ts holds the Worker to its budget).
import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import { mkdirSync, writeFileSync } from "node:fs";

const measureOnly = process.argv.includes("--measure");
const bundles = [
  { name: "worker", entry: "functions/cloudflare/example.ts", platform: "browser", conditions: ["workerd", "worker", "browser"] },
  { name: "vercel", entry: "functions/vercel/example.ts", platform: "node", conditions: [] },
];

/** Resolves the dashboard's entry to a module whose `dashboard()` returns undefined: the app then mounts nothing. */
const withoutDashboard = {
  name: "without-dashboard",
  setup(b) {
    b.onResolve({ filter: /\/dashboard\/index\.js$/ }, (args) => ({ path: args.path, namespace: "no-dashboard" }));
    b.onLoad({ filter: /.*/, namespace: "no-dashboard" }, () => ({ contents: "export const dashboard = () => undefined;", loader: "js" }));
  },
};

async function bundle(b, plugins = []) {
  const out = await build({
    entryPoints: [b.entry], bundle: true, format: "esm", minify: true, platform: b.platform, conditions: b.conditions,
    target: "es2022", logLevel: "warning", write: false, plugins,
  });
  return out.outputFiles[0].contents;
}

const kb = (n) => `${(n / 1024).toFixed(2)} KB`;
const gz = (code) => gzipSync(code).length;

if (!measureOnly) mkdirSync("dist/functions", { recursive: true });
const sizes = {};
for (const b of bundles) {
  const code = await bundle(b);
  const outfile = `dist/functions/${b.name}.js`;
  if (!measureOnly) writeFileSync(outfile, code);
  sizes[b.name] = gz(code);
  console.log(`${outfile}: ${kb(code.length)} raw, ${kb(gz(code))} gzipped`);
}
const without = gz(await bundle(bundles[0], [withoutDashboard]));
console.log(`dashboard: ${kb(sizes.worker - without)} gzipped (example Worker ${kb(sizes.worker)} with it, ${kb(without)} without)`);
if (measureOnly) console.log(`sizes-bytes ${JSON.stringify({ worker: sizes.worker, workerWithoutDashboard: without, dashboard: sizes.worker - without })}`);
