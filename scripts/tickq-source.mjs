// Resolves the package's own specifiers (`tickq`, `tickq/cloudflare`, …) to
// this repository's TypeScript sources, for the examples' tests and
// `npm run build:functions`. Each entry of package.json "exports" names its
// declaration file, which tsc writes as dist/<source>.d.ts, so the source is
// that path without dist/: an example then runs against the code in the tree,
// with no build and no `npm install` inside it. A user's install resolves the
// same specifiers through the same map to dist/.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Specifier → absolute path of its source file, for every export of the package. */
export function tickqSources(root = repoRoot) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const sources = {};
  for (const [subpath, entry] of Object.entries(pkg.exports)) {
    const types = entry.types ?? "";
    if (!types.startsWith("./dist/") || !types.endsWith(".d.ts")) {
      throw new Error(`package.json exports["${subpath}"].types should be ./dist/<source>.d.ts, not "${types}"`);
    }
    const source = join(root, `${types.slice("./dist/".length, -".d.ts".length)}.ts`);
    if (!existsSync(source)) throw new Error(`package.json exports["${subpath}"]: no source file ${source}`);
    sources[pkg.name + subpath.slice(1)] = source;
  }
  return sources;
}

/** An esbuild plugin: `tickq` and `tickq/…` resolve to the sources; a subpath the package does not export fails. */
export function tickqFromSource(root = repoRoot) {
  const sources = tickqSources(root);
  return {
    name: "tickq-from-source",
    setup(build) {
      build.onResolve({ filter: /^tickq(\/|$)/ }, (args) => {
        const path = sources[args.path];
        if (path) return { path };
        return { errors: [{ text: `"${args.path}" is not exported by tickq (package.json "exports")` }] };
      });
    },
  };
}
