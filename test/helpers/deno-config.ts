// examples/deno's deno.json with `tickq/…` mapped to this repository's sources instead of dist/, for
// the tests that run the example under the real Deno binary, and for the bench's Deno server (so it
// imports nothing of vitest's).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot, tickqSources } from "../../scripts/tickq-source.mjs";

/** The example's deno.json with `tickq/…` mapped to the sources, in a folder of tmp/; answers its path. */
export function denoSourcesConfig(): { path: string; remove(): void } {
  const own = JSON.parse(readFileSync(join(repoRoot, "examples", "deno", "deno.json"), "utf8")) as {
    imports: Record<string, string>;
  };
  const imports = Object.fromEntries(
    Object.entries(own.imports).filter(([specifier]) => !/^tickq(\/|$)/.test(specifier)),
  );
  for (const [specifier, source] of Object.entries(tickqSources())) imports[specifier] = pathToFileURL(source).href;
  mkdirSync(join(repoRoot, "tmp"), { recursive: true });
  const dir = mkdtempSync(join(repoRoot, "tmp", "example-deno-"));
  const path = join(dir, "deno.json");
  // The sources import each other as ".js" files that are ".ts" on disk, as tsc wants: sloppy imports resolve them.
  writeFileSync(path, JSON.stringify({ imports, unstable: ["sloppy-imports"] }, null, 2));
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
