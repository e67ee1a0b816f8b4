// `npm test` (scripts/test-parts.mjs) runs every part, the ones after a failed
// part too, and exits non-zero naming each part that failed; a part name that
// is no npm script is refused before anything runs.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const runner = resolve(import.meta.dirname, "../../scripts/test-parts.mjs");
const dir = mkdtempSync(join(tmpdir(), "tickq-parts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Each part leaves a file named for it, so a test sees which parts ran.
const part = (name: string, exit: number) =>
  `node -e "require('fs').writeFileSync('ran-${name}', ''); process.exit(${exit})"`;
writeFileSync(
  join(dir, "package.json"),
  JSON.stringify({
    name: "parts",
    private: true,
    scripts: {
      first: part("first", 3),
      second: part("second", 0),
      third: part("third", 1),
      fine: part("fine", 0),
      named: `node -e "console.log(' \\u00d7 a suite > names its failed test 12ms'); process.exit(1)"`,
    },
  }),
);

function run(...parts: string[]) {
  for (const name of ["first", "second", "third", "fine"]) rmSync(join(dir, `ran-${name}`), { force: true });
  const result = spawnSync(process.execPath, [runner, ...parts], { cwd: dir, encoding: "utf8" });
  const ran = ["first", "second", "third", "fine"].filter((name) => existsSync(join(dir, `ran-${name}`)));
  return { status: result.status, out: result.stdout, err: result.stderr, ran };
}

describe("npm test's parts", () => {
  it("run all, after a failed one too, and the run fails naming every failed part", () => {
    const { status, out, ran } = run("first", "second", "third");
    expect(ran).toEqual(["first", "second", "third"]);
    expect(status).toBe(1);
    expect(out).toMatch(/FAIL {2}first +\d+ s \(exit 3\)/);
    expect(out).toMatch(/ok {4}second/);
    expect(out).toMatch(/FAIL {2}third +\d+ s \(exit 1\)/);
    expect(out).toMatch(/2 of 3 parts failed: first, third\./);
  });

  it("print the names of the failed tests again after the table, so a log's tail shows them", () => {
    const { status, out } = run("named", "second");
    expect(status).toBe(1);
    const table = out.indexOf("npm test: 2 parts");
    expect(table).toBeGreaterThan(0);
    expect(out.slice(table)).toMatch(/named: what failed\n {2}× a suite > names its failed test/);
  });

  it("pass when every part passes", () => {
    const { status, out, ran } = run("second", "fine");
    expect(ran).toEqual(["second", "fine"]);
    expect(status).toBe(0);
    expect(out).toMatch(/every part passed/);
  });

  it("refuse a part that is no npm script before running any, naming it", () => {
    const { status, err, ran } = run("second", "secnod");
    expect(ran).toEqual([]);
    expect(status).toBe(2);
    expect(err).toMatch(/no script "secnod" in package.json/);
  });
});
