// The example Worker's wrangler.toml is valid: `wrangler deploy --dry-run`
// bundles it offline, with no account. The config is the example's own, with
// an [alias] table appended that resolves `tickq` to this repository's
// sources, where a user's `npm install` in the example links the package.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, tickqSources } from "../../../scripts/tickq-source.mjs";
import { exampleDir } from "../../helpers/examples.js";

describe("examples/cloudflare-worker/wrangler.toml", () => {
  it("passes wrangler deploy --dry-run", () => {
    const dir = mkdtempSync(join(tmpdir(), "tickq-wrangler-"));
    try {
      const out = join(dir, "out");
      mkdirSync(join(dir, "tmp"));
      const aliases = Object.entries(tickqSources()).map(
        ([specifier, source]) => `${JSON.stringify(specifier)} = ${JSON.stringify(source)}`,
      );
      const own = readFileSync(join(exampleDir("cloudflare-worker"), "wrangler.toml"), "utf8");
      const config = join(dir, "wrangler.toml");
      writeFileSync(config, `${own}\n[alias]\n${aliases.join("\n")}\n`);
      // `main` is relative to the config: given again as the script, relative to the example.
      const args = ["deploy", "src/index.ts", "--config", config, "--dry-run", "--outdir", out];
      const log = execFileSync(join(repoRoot, "node_modules", ".bin", "wrangler"), args, {
        cwd: exampleDir("cloudflare-worker"),
        env: {
          ...process.env,
          XDG_CONFIG_HOME: join(dir, "config"),
          TMPDIR: join(dir, "tmp"),
          WRANGLER_SEND_METRICS: "false",
          CI: "true",
        },
        encoding: "utf8",
        stdio: "pipe",
      });
      expect(log).toMatch(/--dry-run: exiting now/);
      expect(log).toMatch(/TICKQ_CRON_BUDGET_MS/);
      expect(existsSync(out)).toBe(true);
      expect(readdirSync(out).some((f) => f.endsWith(".js"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
