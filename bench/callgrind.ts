// What the benches that count instructions share: a process under valgrind's callgrind whose
// total the bench divides by its work, and a private redis-server under callgrind whose
// instrumentation the bench turns on around the measured part only.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";

/**
 * Runs `argv` under callgrind in `cwd`; answers the instructions it counted and what it wrote to stderr.
 * `mainThread`: also the main thread's own count (`--separate-threads=yes`), without V8's compiler and
 * GC helper threads, whose share of a short window moves with when TurboFan happens to compile.
 */
export function callgrindCount(
  argv: string[],
  cwd: string,
  label: string,
  options: { mainThread?: boolean } = {},
): Promise<{ instructions: number; stderr: string; mainThread?: number }> {
  const dir = options.mainThread ? mkdtempSync(join(tmpdir(), "tickq-cg-")) : undefined;
  const out = dir === undefined ? "/dev/null" : join(dir, "cg.out");
  const args = ["--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${out}`];
  if (dir !== undefined) args.push("--separate-threads=yes");
  return new Promise((done, fail) => {
    const child = spawn("valgrind", [...args, ...argv], { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", fail);
    child.on("exit", (code) => {
      try {
        const collected = /Collected : (\d+)/.exec(stderr)?.[1];
        if (code !== 0 || collected === undefined)
          return fail(new Error(`${label}: exit ${code}\n${stderr.slice(-2000)}`));
        done({
          instructions: Number(collected),
          stderr,
          mainThread: dir === undefined ? undefined : mainThreadOf(dir),
        });
      } finally {
        if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/** The `totals:` of thread 1's file among callgrind's per-thread outputs in `dir`. */
function mainThreadOf(dir: string): number {
  for (const file of readdirSync(dir)) {
    const text = readFileSync(join(dir, file), "utf8");
    if (!/^thread: 1$/m.test(text)) continue;
    const totals = /^totals: (\d+)/m.exec(text)?.[1];
    if (totals !== undefined) return Number(totals);
  }
  throw new Error(`callgrind wrote no main thread's totals in ${dir}`);
}

/**
 * A redis-server on `port` under callgrind, writing its counts to `out`, instrumentation off until
 * turned on; answers once it answers PING (valgrind starts it slowly).
 */
export async function callgrindRedis(port: number, out: string): Promise<{ server: ChildProcess; url: string }> {
  const redis = ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const server = spawn(
    "valgrind",
    ["--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${out}`, ...redis, "--hz", "1"],
    { stdio: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => 200 });
  probe.on("error", () => {}); // refused until valgrind's server listens
  for (let i = 0; i < 100; i++) {
    if ((await probe.ping().catch(() => "")) === "PONG") break;
    await new Promise((r) => setTimeout(r, 200));
  }
  probe.disconnect();
  return { server, url };
}
