// Runs an example of examples/ as its README says, with `tickq` resolved to
// this repository's sources (scripts/tickq-source.mjs) instead of an install
// inside the example: a tsconfig that extends the example's own and adds
// `paths` for every export of the package, used by tsx to run the example
// and by tsc to type-check it. Temporary files go under tmp/ (ignored by git),
// where type roots and packages resolve from this repository's node_modules.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { repoRoot, tickqSources } from "../../scripts/tickq-source.mjs";
import { sleep } from "./redis.js";

export type ExampleName =
  | "cloudflare-worker"
  | "vercel"
  | "node"
  | "bun"
  | "deno"
  | "lambda"
  | "netlify"
  | "express"
  | "fastify";

export const exampleDir = (name: ExampleName) => join(repoRoot, "examples", name);

/** Writes the example's tsconfig with `tickq` mapped to the sources; answers its path and a cleanup. */
export function exampleTsconfig(name: ExampleName): { path: string; remove(): void } {
  mkdirSync(join(repoRoot, "tmp"), { recursive: true });
  const dir = mkdtempSync(join(repoRoot, "tmp", `example-${name}-`));
  const paths = Object.fromEntries(Object.entries(tickqSources()).map(([specifier, source]) => [specifier, [source]]));
  const path = join(dir, "tsconfig.json");
  const config = { extends: join(exampleDir(name), "tsconfig.json"), compilerOptions: { paths } };
  writeFileSync(path, JSON.stringify(config, null, 2));
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RunningExample {
  url: string;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  stop(): Promise<void>;
}

/** How an example runs: the command and its arguments, given the tsconfig that maps `tickq` to the sources. */
export type ExampleRunner = (tsconfigPath: string, entry: string) => { command: string; args: string[] };

/** tsx, as the Node examples' `npm start` runs them. */
export const tsxRunner: ExampleRunner = (tsconfigPath, entry) => ({
  command: join(repoRoot, "node_modules", ".bin", "tsx"),
  args: ["--tsconfig", tsconfigPath, entry],
});

/** Starts `entry` of the example (with tsx unless told); resolves once it prints `listening on <url>`. */
export async function startExample(
  name: ExampleName,
  entry: string,
  env: Record<string, string>,
  runner: ExampleRunner = tsxRunner,
): Promise<RunningExample> {
  const tsconfig = exampleTsconfig(name);
  const { command, args } = runner(tsconfig.path, entry);
  const child: ChildProcess = spawn(command, args, {
    cwd: exampleDir(name),
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const listening = new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      printed += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(printed);
      if (found) resolve(found[1]!);
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    void exited.then(() => reject(new Error(`examples/${name}/${entry} exited before listening:\n${printed}`)));
  });
  const url = await listening.catch((error: unknown) => {
    tsconfig.remove();
    throw error;
  });
  return {
    url,
    output: () => printed,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
      tsconfig.remove();
    },
  };
}

/** Jobs done under `prefix`, read until there are `atLeast` or about 10 s have passed. */
export async function processedUnder(redis: Redis, prefix: string, atLeast: number): Promise<number> {
  const read = async () => Number((await redis.get(`${prefix}stat:processed`)) ?? 0);
  for (let i = 0; i < 100 && (await read()) < atLeast; i++) await sleep(100);
  return read();
}

/** The example's output once it holds `line`, or after about 1 s: a child's line can arrive after what it did next. */
export async function outputHolding(example: RunningExample, line: string): Promise<string> {
  for (let i = 0; i < 50 && !example.output().includes(line); i++) await sleep(20);
  return example.output();
}
