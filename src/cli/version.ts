// The version `tickq --version` prints: the build defines TICKQ_VERSION
// (scripts/build.mjs); run from source (npm run tickq, tsx) it is read from
// the package.json two folders up, so a developer sees the real one, not "dev".
import { readFileSync } from "node:fs";

declare const TICKQ_VERSION: string | undefined;

export function cliVersion(): string {
  if (typeof TICKQ_VERSION === "string") return TICKQ_VERSION;
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      name?: string;
      version?: string;
    };
    if (pkg.name === "tickq" && typeof pkg.version === "string") return pkg.version;
  } catch {
    // not beside its package.json: fall through
  }
  return "unknown";
}
