// The tick worker processes (bench/chaos-worker.ts): started, SIGKILLed and
// replaced at random by the fault injector, and stopped gently at the end
// (IPC "stop": each finishes its tick and exits; SIGKILL if it lingers).
// A worker that dies on its own is counted as a crash and replaced.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Rng } from "./rng.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WORKER = fileURLToPath(new URL("../chaos-worker.ts", import.meta.url));

export interface WorkerPool {
  /** SIGKILLs one worker at random and starts a new one in its place. */
  killOne(rng: Rng): boolean;
  crashes(): number;
  /** The last lines workers wrote to stderr. */
  stderr(): string[];
  stop(timeoutMs: number): Promise<void>;
}

/** `script`: the worker to run; the ordered phase passes its own (bench/chaos-ordered-worker.ts). */
export function startWorkers(count: number, env: Record<string, string>, script = WORKER): WorkerPool {
  const expected = new WeakSet<ChildProcess>(); // exits we caused
  const tail: string[] = [];
  let crashes = 0;
  let stopping = false;

  const start = (): ChildProcess => {
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      tail.push(...chunk.toString().trimEnd().split("\n"));
      tail.splice(0, Math.max(0, tail.length - 40));
    });
    child.on("error", (error) => tail.push(`spawn failed: ${error.message}`));
    child.on("exit", () => {
      if (expected.has(child) || stopping) return;
      crashes++;
      const i = workers.indexOf(child);
      if (i >= 0) workers[i] = start();
    });
    return child;
  };
  const workers: ChildProcess[] = Array.from({ length: count }, start);

  return {
    killOne(rng) {
      const i = Math.floor(rng() * workers.length);
      const victim = workers[i]!;
      expected.add(victim);
      victim.kill("SIGKILL");
      workers[i] = start();
      return true;
    },
    crashes: () => crashes,
    stderr: () => [...tail],
    async stop(timeoutMs) {
      stopping = true;
      await Promise.all(
        workers.map(async (child) => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
          if (child.connected) child.send("stop");
          const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
          await exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}
