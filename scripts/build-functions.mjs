// npm run build:functions: bundles the example Cloudflare Worker and Vercel
// Function with esbuild (ESM, minified) into dist/functions/, and prints
// each bundle's size, raw and gzipped (test/bundle-size.test.ts holds the
// Worker to its budget).
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const bundles = [
  { name: "worker", entry: "functions/cloudflare/example.ts", platform: "browser", conditions: ["workerd", "worker", "browser"] },
  { name: "vercel", entry: "functions/vercel/example.ts", platform: "node", conditions: [] },
];

for (const b of bundles) {
  const outfile = `dist/functions/${b.name}.js`;
  await build({
    entryPoints: [b.entry],
    outfile,
    bundle: true,
    format: "esm",
    minify: true,
    platform: b.platform,
    conditions: b.conditions,
    target: "es2022",
    logLevel: "warning",
  });
  const code = readFileSync(outfile);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`${outfile}: ${kb(code.length)} raw, ${kb(gzipSync(code).length)} gzipped`);
}
