// The CLI as users run it: bundled for Node (as npm run build makes
// dist/cli.js), run as a child process against the real Redis, with its
// output and exit code. Bundled once per test file, into node_modules/.cache
// so its imports resolve to this project's packages.
import { execFile } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { inject } from "vitest";
import { newJid } from "../../src/job/codec.js";
import { type AdapterCase, adapterCases } from "./adapters.js";

/**
 * The CLI picks its adapter from the env: the "upstash" case would run restAdapter again, and the "node-redis"
 * case ioredis again.
 */
export const cliConnections: AdapterCase[] = adapterCases.filter(
  (c) => c.name !== "upstash" && c.name !== "node-redis",
);

/** The env that points the CLI at the test Redis over `adapterCase`'s connection. */
export function cliEnv(adapterCase: AdapterCase): Record<string, string> {
  return adapterCase.name === "ioredis"
    ? { REDIS_URL: inject("redisUrl") }
    : { UPSTASH_REDIS_REST_URL: inject("restUrl"), UPSTASH_REDIS_REST_TOKEN: inject("restToken") };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Cli {
  /** The bundled CLI, for `node <path> …`. */
  path: string;
  run(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** stdout parsed as JSON (the command gets --json). */
  json<T = unknown>(args: string[], env?: Record<string, string>): Promise<{ code: number; body: T }>;
  dispose(): void;
}

export async function buildCli(baseEnv: Record<string, string>): Promise<Cli> {
  const dir = resolve("node_modules/.cache/tickq-cli-test", newJid());
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, "cli.mjs");
  await build({
    entryPoints: ["src/cli/main.ts"],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    define: { TICKQ_VERSION: '"test"' },
    logLevel: "warning",
  });
  const run = (args: string[], env: Record<string, string> = {}) =>
    new Promise<CliResult>((done) => {
      const childEnv = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...baseEnv, ...env };
      execFile(process.execPath, [outfile, ...args], { env: childEnv, timeout: 30_000 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      });
    });
  return {
    path: outfile,
    run,
    async json(args, env) {
      const result = await run([...args, "--json"], env);
      let body: unknown;
      try {
        body = JSON.parse(result.stdout);
      } catch {
        throw new Error(`not JSON (exit ${result.code}): ${result.stdout}\n${result.stderr}`);
      }
      return { code: result.code, body: body as never };
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
