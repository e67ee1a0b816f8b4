// The sample of a bench run in a fresh process (`npx tsx SCRIPT ARGS…`), so no tree's JIT state or module
// state reaches another's: the child prints its sample as JSON on its last line of stdout.
import { spawn } from "node:child_process";

/** Runs `script` with `args` in a fresh tsx process and answers the JSON of its last stdout line; `what` names it in an error. */
export function sampleInChild<T>(script: string, args: string[], what: string): Promise<T> {
  return new Promise((resolveSample, reject) => {
    const child = spawn("npx", ["tsx", script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${what} exited ${code}`));
      resolveSample(JSON.parse(out.trim().split("\n").at(-1)!) as T);
    });
  });
}
