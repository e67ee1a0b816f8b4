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

/** A copy of what the lint reads, in a fresh directory, for planting imports in. */
function copyOfTree(): { dir: string; plant(file: string, line: string): void } {
  const dir = mkdtempSync(join(tmpdir(), "tickq-layers-"));
  for (const file of ["src", "tsconfig.json", ".dependency-cruiser.cjs", ".dependency-cruiser-known-violations.json"])
    cpSync(join(repo, file), join(dir, file), { recursive: true });
  symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"));
  return { dir, plant: (file, line) => appendFileSync(join(dir, "src", file), `\n${line}\n`) };
}

describe("the layer rules", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("fail on a new back-import, a type-only circle, a surface reached from below and a folder in no layer", () => {
    const { dir, plant } = copyOfTree();
    dirs.push(dir);
    plant("tick/settings.ts", 'export { checkWorkflows } from "../workflows/registry.js";');
    plant("errors.ts", 'export type { numberOption } from "./options.js";'); // options.ts imports errors.ts
    plant("stats/history.ts", 'export { STYLE } from "../dashboard/style.js";');
    mkdirSync(join(dir, "src/gadgets"));
    writeFileSync(join(dir, "src/gadgets/gadget.ts"), 'export { TickqError } from "../errors.js";\n');

    const { status, found } = checkLayers(dir);
    expect(status).not.toBe(0);
    // The tick's back-import closes folder circles too (tick/ → workflows/ → tick/ ...): the next case has one alone.
    expect(found.filter((f) => !f.startsWith("no-folder-circle:")).sort()).toEqual(
      [
        "no-import-up-from-tick: src/tick/settings.ts → src/workflows/registry.ts",
        "tick-imports-no-capability: src/tick/settings.ts → src/workflows/registry.ts",
        "no-circular: src/errors.ts → src/options.ts",
        "no-import-up-from-capabilities: src/stats/history.ts → src/dashboard/style.ts",
        "surfaces-reached-from-surfaces-only: src/stats/history.ts → src/dashboard/style.ts",
        "every-file-in-a-layer: src/gadgets/gadget.ts → src/errors.ts",
      ].sort(),
    ); // and nothing else
  }, 120_000);

  it("fail on two folders of one layer that import each other, with no file on a circle", () => {
    const { dir, plant } = copyOfTree();
    dirs.push(dir);
    // workflows/invoke.ts enqueues through client/enqueue.ts; client/ naming a workflow type closes a folder circle.
    plant("client/define-job.ts", 'export type { WorkflowStats } from "../workflows/types.js";');

    const { status, found } = checkLayers(dir);
    expect(status).not.toBe(0);
    expect(found.sort()).toEqual([
      "no-folder-circle: src/client → src/workflows",
      "no-folder-circle: src/workflows → src/client",
    ]);
  }, 120_000);
});
