// wrangler.toml is valid: `wrangler deploy --dry-run` bundles the example
// Worker offline, with no account.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

describe("wrangler.toml", () => {
  it("passes wrangler deploy --dry-run", () => {
    const dir = mkdtempSync(join(tmpdir(), "tickq-wrangler-"));
    try {
      const out = join(dir, "out");
      mkdirSync(join(dir, "tmp"));
      const log = execFileSync(join("node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", out], {
        env: { ...process.env, XDG_CONFIG_HOME: join(dir, "config"), TMPDIR: join(dir, "tmp"), WRANGLER_SEND_METRICS: "false", CI: "true" },
        encoding: "utf8",
        stdio: "pipe",
      });
      expect(log).toMatch(/--dry-run: exiting now/);
      expect(existsSync(out)).toBe(true);
      expect(readdirSync(out).some((f) => f.endsWith(".js"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
