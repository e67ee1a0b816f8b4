// The tests that SIGKILL tick processes start dozens of them. Under
// `node --import tsx` each start transpiles src/ again (about a second a
// child on this machine); a fixture bundled once per test process starts in
// a fraction of that. One process, as with tsx: SIGKILL reaches the tick.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { buildSync } from "esbuild";

const bundles = new Map<string, string>();

/** `node`'s arguments that run test/fixtures/`fixture` (bundled on first use; packages stay external). */
export function fixtureArgs(fixture: string): string[] {
  let outfile = bundles.get(fixture);
  if (outfile === undefined) {
    // Under node_modules, so the bundle's package imports resolve to this project's; a folder per
    // process, so test processes bundling at once never write the same file.
    const dir = resolve("node_modules/.cache/tickq-fixtures", String(process.pid));
    mkdirSync(dir, { recursive: true });
    outfile = resolve(dir, fixture.replace(/\.ts$/, ".mjs"));
    buildSync({
      entryPoints: [`test/fixtures/${fixture}`],
      outfile,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      packages: "external",
      logLevel: "warning",
    });
    bundles.set(fixture, outfile);
  }
  return [outfile];
}
