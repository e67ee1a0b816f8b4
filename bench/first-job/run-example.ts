// One example from a fresh copy to its first job: copy examples/<name> to a temporary folder outside
// the checkout, point its `tickq` at the packed tarball, run the README's install, then its run
// command; a server gets a POST /signup once it prints `listening on <url>`. The clock stops when the
// example prints the job's line (`welcome email sent to …`). Each command runs in its own process
// group, stopped by its id.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pause } from "../serverless/stats.js";
import type { Recipe, RunContext } from "./recipes.js";

export interface FirstJobRow {
  example: string;
  /** Seconds the README's install took; 0 where there is none. */
  installSeconds: number;
  /** Seconds from the run command to the job's line. */
  runSeconds: number;
}

export interface Tools {
  /** The checkout's examples/ folder. */
  examples: string;
  tarball: string;
  /** The tarball unpacked (its `package/` folder). */
  unpacked: string;
  /** Prepended to PATH: a folder holding `bun` and `deno`. */
  binDir: string;
  /** A fresh cache per example (npm, Bun and Deno), as on a new user's machine; else the machine's. */
  freshCache: boolean;
  timeoutMs: number;
}

const JOB_LINE = "welcome email sent to ada@example.com";

export async function firstJob(recipe: Recipe, tools: Tools, context: RunContext): Promise<FirstJobRow> {
  const dir = mkdtempSync(join(tmpdir(), `tickq-first-job-${recipe.name}-`));
  const app = join(dir, recipe.name);
  cpSync(join(tools.examples, recipe.name), app, { recursive: true });
  recipe.useTarball(app, tools.tarball, tools.unpacked);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${tools.binDir}:${process.env.PATH ?? ""}`,
    NO_COLOR: "1",
    ...recipe.env(context),
  };
  if (tools.freshCache) {
    mkdirSync(join(dir, "cache"));
    Object.assign(env, {
      npm_config_cache: join(dir, "cache", "npm"),
      BUN_INSTALL_CACHE_DIR: join(dir, "cache", "bun"),
      DENO_DIR: join(dir, "cache", "deno"),
    });
  }
  try {
    const t0 = performance.now();
    if (recipe.install) await finish(start(recipe.install, app, env), tools.timeoutMs);
    const t1 = performance.now();
    const child = start(recipe.run, app, env);
    try {
      await untilPrinted(child, recipe, context.port, tools.timeoutMs);
      return { example: recipe.name, installSeconds: (t1 - t0) / 1000, runSeconds: (performance.now() - t1) / 1000 };
    } finally {
      await stop(child.process);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Started {
  process: ChildProcess;
  command: string;
  output(): string;
}

function start([command, ...args]: string[], cwd: string, env: NodeJS.ProcessEnv): Started {
  const child = spawn(command!, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let printed = "";
  child.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  return { process: child, command: [command, ...args].join(" "), output: () => printed };
}

function finish(started: Started, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(started.process);
      reject(new Error(`${started.command} took over ${timeoutMs / 1000} s:\n${started.output()}`));
    }, timeoutMs);
    started.process.once("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${started.command} exited with ${code}:\n${started.output()}`));
    });
  });
}

async function untilPrinted(child: Started, recipe: Recipe, port: number, timeoutMs: number): Promise<void> {
  let exited = false;
  child.process.once("exit", () => (exited = true));
  let signedUp = !recipe.signupPath;
  for (const t = performance.now(); performance.now() - t < timeoutMs; await pause(5)) {
    const printed = child.output();
    if (printed.includes(JOB_LINE)) return;
    const url = recipe.ready
      ? recipe.ready.test(printed)
        ? `http://127.0.0.1:${port}`
        : undefined
      : /listening on (http:\/\/\S+)/.exec(printed)?.[1];
    if (!signedUp && url) {
      signedUp = true;
      const res = await fetch(`${url}${recipe.signupPath}`, {
        method: "POST",
        body: JSON.stringify({ email: "ada@example.com" }),
        headers: { "content-type": "application/json" },
      });
      if (res.status !== 201) throw new Error(`POST ${recipe.signupPath} answered ${res.status}:\n${printed}`);
    }
    if (exited && !child.output().includes(JOB_LINE))
      throw new Error(`${child.command} exited before its job ran:\n${child.output()}`);
  }
  throw new Error(`${child.command}: no job ran within ${timeoutMs / 1000} s:\n${child.output()}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return; // the group is already gone
  }
  await Promise.race([exited, pause(5_000)]);
  if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, "SIGKILL");
}
