// The layer rules of `npm run lint` (.dependency-cruiser.cjs, with today's
// known violations ignored) on a copy of src/ with new imports planted in it:
// each planted import breaks its rule and fails the run, while the known ones
// stay quiet. The lint itself checks the real tree.
import { execFileSync } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
const depcruise = join(repo, "node_modules/.bin/depcruise");

/** Runs the lint's layer check in `dir`: its exit status and each violation as "rule: from → to" (a circle's first step). */
function checkLayers(dir: string): { status: number; found: string[] } {
  const run = (): { status: number; stdout: string } => {
    try {
      const stdout = execFileSync(process.execPath, [depcruise, "src", "--ignore-known", "--output-type", "err"], {
        cwd: dir,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
      return { status: 0, stdout };
    } catch (error) {
      return error as { status: number; stdout: string };
    }
  };
  const { status, stdout } = run();
  return {
    status,
    found: [...stdout.matchAll(/error (\S+): (\S+) →\s*(\S+)/g)].map((m) => `${m[1]}: ${m[2]} → ${m[3]}`),
  };
}

describe("the layer rules", () => {
  const dir = mkdtempSync(join(tmpdir(), "tickq-layers-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of ["src", "tsconfig.json", ".dependency-cruiser.cjs", ".dependency-cruiser-known-violations.json"])
    cpSync(join(repo, file), join(dir, file), { recursive: true });
  symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"));

  it("fail on a new back-import, a type-only circle, a surface reached from below and a folder in no layer", () => {
    const plant = (file: string, line: string) => appendFileSync(join(dir, "src", file), `\n${line}\n`);
    plant("tick/settings.ts", 'export { checkWorkflows } from "../workflows/registry.js";');
    plant("errors.ts", 'export type { numberOption } from "./options.js";'); // options.ts imports errors.ts
    plant("stats/history.ts", 'export { STYLE } from "../dashboard/style.js";');
    mkdirSync(join(dir, "src/gadgets"));
    writeFileSync(join(dir, "src/gadgets/gadget.ts"), 'export { TickqError } from "../errors.js";\n');

    const { status, found } = checkLayers(dir);
    expect(status).not.toBe(0);
    expect(found.sort()).toEqual(
      [
        "no-import-up-from-tick: src/tick/settings.ts → src/workflows/registry.ts",
        "tick-imports-no-capability: src/tick/settings.ts → src/workflows/registry.ts",
        "no-circular: src/errors.ts → src/options.ts",
        "no-import-up-from-capabilities: src/stats/history.ts → src/dashboard/style.ts",
        "surfaces-reached-from-surfaces-only: src/stats/history.ts → src/dashboard/style.ts",
        "every-file-in-a-layer: src/gadgets/gadget.ts → src/errors.ts",
      ].sort(),
    ); // and nothing else: the known violations (src/tick/run.ts → src/workflows/pass.ts among them) stay ignored
  }, 120_000);
});
