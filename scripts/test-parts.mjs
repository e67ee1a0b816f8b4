// `npm test`: runs each part it is given (an npm script of package.json),
// one after the other, every one of them whatever the earlier ones did, then
// prints which parts failed and exits non-zero if any did. A chain of `&&`
// stopped at the first failure, so the suites after it never ran and their
// failures were never seen. A part stopped by a signal (Ctrl-C) stops the run.
// The names of the failed tests are printed again at the end, beside the
// table, since a CI log that keeps only its tail would otherwise lose them.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const parts = process.argv.slice(2);
const scripts = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")).scripts ?? {};
const unknown = parts.filter((part) => !Object.hasOwn(scripts, part));
if (parts.length === 0 || unknown.length > 0) {
  const named = unknown.map((part) => JSON.stringify(part)).join(", ");
  console.error(
    parts.length === 0
      ? "test-parts: name the parts to run, each an npm script of package.json (node scripts/test-parts.mjs typecheck test:unit)"
      : `test-parts: no script ${named} in package.json: each part is an npm script (known: ${Object.keys(scripts).join(", ")})`,
  );
  process.exit(2);
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const ANSI = /\u001b\[[0-9;]*m/g;
// Vitest marks a failed test with ×, a failed file with FAIL, and tsc an error with "error TS".
const FAILURE_LINE = /^\s*(×|FAIL\s)|error TS\d+/;

/** Runs one part, passing its output through and keeping the lines that name a failure. */
function runPart(part) {
  return new Promise((resolve) => {
    const failures = [];
    const child = spawn(npm, ["run", "-s", part], { stdio: ["inherit", "pipe", "pipe"] });
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      let rest = "";
      from.on("data", (chunk) => {
        to.write(chunk);
        const lines = (rest + chunk.toString("utf8")).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) {
          const plain = line.replace(ANSI, "");
          if (FAILURE_LINE.test(plain) && failures.length < 40) failures.push(plain.trim());
        }
      });
    }
    child.on("error", (error) => resolve({ status: null, signal: null, error, failures }));
    child.on("close", (status, signal) => resolve({ status, signal, error: undefined, failures }));
  });
}

const results = [];
for (const part of parts) {
  console.log(`\n▶ npm run ${part}`);
  const started = performance.now();
  const run = await runPart(part);
  const seconds = Math.round((performance.now() - started) / 1000);
  results.push({ part, seconds, ...run });
  if (run.signal || run.error) break;
}

const failed = results.filter((r) => r.status !== 0);
const width = Math.max(...parts.map((part) => part.length));
console.log(`\nnpm test: ${parts.length} parts`);
for (const r of results) {
  const how =
    r.status === 0
      ? ""
      : r.signal
        ? ` (stopped by ${r.signal})`
        : r.error
          ? ` (${r.error.message})`
          : ` (exit ${r.status})`;
  console.log(`  ${r.status === 0 ? "ok  " : "FAIL"}  ${r.part.padEnd(width)}  ${r.seconds} s${how}`);
}
for (const part of parts.slice(results.length)) console.log(`  -     ${part.padEnd(width)}  not run`);
for (const r of failed) {
  if (r.failures.length === 0) continue;
  console.log(`\n${r.part}: what failed`);
  for (const line of [...new Set(r.failures)]) console.log(`  ${line}`);
}
if (failed.length > 0 || results.length < parts.length) {
  const names = failed.map((r) => r.part).join(", ");
  console.log(
    `${failed.length} of ${parts.length} parts failed: ${names}. Run one again alone with \`npm run ${failed[0]?.part ?? parts[0]}\`; its failures are printed above.`,
  );
  process.exit(1);
}
console.log(`every part passed`);
