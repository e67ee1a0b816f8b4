// CI's gates for the suites that need a tool (.ci/require-tools.sh, sourced
// by .ci/run): a failed install of Ruby Sidekiq or Chromium must fail CI, not
// turn those suites into skips; only an explicit opt-out skips them. The
// machine's own tools are shadowed by a folder, first in PATH, where `ruby`
// and `apt-get` fail, and CHROMIUM_PATH names a binary that does not exist.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const broken = mkdtempSync(join(tmpdir(), "tickq-ci-"));
for (const tool of ["ruby", "apt-get"]) {
  writeFileSync(join(broken, tool), '#!/bin/sh\necho "$0: not available here" >&2\nexit 100\n');
  chmodSync(join(broken, tool), 0o755);
}
afterAll(() => rmSync(broken, { recursive: true, force: true }));

/** Sources the gates as .ci/run does (set -e), then prints the TICKQ_REQUIRE_* variables it exported. */
function gates(env: Record<string, string>) {
  const run = spawnSync(
    "bash",
    [
      "--norc",
      "--noprofile",
      "-c",
      "set -euo pipefail; source .ci/require-tools.sh; { env | grep '^TICKQ_REQUIRE_' || true; } | sort",
    ],
    {
      cwd: join(import.meta.dirname, "../.."),
      stdio: ["ignore", "pipe", "pipe"],
      env: { HOME: broken, PATH: `${broken}:${process.env.PATH}`, CHROMIUM_PATH: join(broken, "no-chromium"), ...env },
      encoding: "utf8",
    },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("CI's gates for Sidekiq and Chromium", () => {
  it("fails when Ruby Sidekiq cannot be installed, naming the opt-out", () => {
    const run = gates({});
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(
      /Ruby Sidekiq does not work after installing ruby-sidekiq: CI fails \(set TICKQ_SKIP_SIDEKIQ=1/,
    );
  });

  it("fails when Chromium cannot be installed, once Sidekiq is opted out", () => {
    const run = gates({ TICKQ_SKIP_SIDEKIQ: "1" });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(
      /Chromium does not work after installing chromium: CI fails \(set TICKQ_SKIP_CHROMIUM=1/,
    );
  });

  it("skips only the suites opted out, and requires nothing of them", () => {
    const run = gates({ TICKQ_SKIP_SIDEKIQ: "1", TICKQ_SKIP_CHROMIUM: "1" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Ruby Sidekiq: skipped on this machine \(TICKQ_SKIP_SIDEKIQ=1\)/);
    expect(run.stdout).not.toMatch(/TICKQ_REQUIRE_/);
  });

  it("requires a suite whose tool works, so the suite cannot skip", () => {
    // `true` stands for a Chromium that runs.
    const run = gates({ TICKQ_SKIP_SIDEKIQ: "1", CHROMIUM_PATH: "/bin/true" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim().split("\n").at(-1)).toBe("TICKQ_REQUIRE_CHROMIUM=1");
  });
});
