// The examples type-check, with `tickq` mapped to this repository's sources:
// the other tests run them through tsx and esbuild, which strip types without
// checking them. One tsc run over all of them (their own `include`s, the Node
// example's options, a superset of the others'): tsc checks the library's
// sources they import once instead of once an example. Bun's and Deno's are
// not here: their globals' types come with their runtimes (@types/bun, deno
// check), and they run under their own binaries (bun.test.ts, deno.test.ts).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../../scripts/tickq-source.mjs";
import { exampleDir, exampleTsconfig, type ExampleName } from "../../helpers/examples.js";

const EXAMPLES: ExampleName[] = ["cloudflare-worker", "vercel", "node", "express", "fastify", "lambda", "netlify"];

function tsc(project: string): string {
  try {
    execFileSync(join(repoRoot, "node_modules", ".bin", "tsc"), ["-p", project], { encoding: "utf8", stdio: "pipe" });
    return "";
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

describe("the examples", () => {
  it(`type-check: ${EXAMPLES.join(", ")}`, () => {
    const tsconfig = exampleTsconfig("node");
    try {
      const include = EXAMPLES.flatMap((name) => {
        const own = JSON.parse(readFileSync(join(exampleDir(name), "tsconfig.json"), "utf8")) as { include: string[] };
        return own.include.map((path) => join(exampleDir(name), path));
      });
      const config = JSON.parse(readFileSync(tsconfig.path, "utf8")) as object;
      writeFileSync(tsconfig.path, JSON.stringify({ ...config, include }));
      expect(include.length).toBeGreaterThanOrEqual(EXAMPLES.length);
      expect(tsc(tsconfig.path)).toBe("");
    } finally {
      tsconfig.remove();
    }
  }, 180_000);
});
