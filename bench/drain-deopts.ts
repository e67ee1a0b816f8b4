// npx tsx bench/drain-deopts.ts [--drains 8 --jobs 20000] [--ref REV --processes 2]
// bench/drain-warmup.ts under V8's tracing (node --trace-opt --trace-deopt, flags of this probe's
// child alone: a user's process has none): per drain, the eager and soft deoptimizations and the
// TurboFan compiles V8 traced between the drain's start line and its end line, and each
// deoptimization's function and reason. A deoptimization throws optimized code away and the
// function is compiled again, during the drain (issue 46's short drain, docs/benchmarks.md). Which
// compile falls inside a drain rather than in the enqueue before it moves with the threads'
// scheduling; the deoptimizations move less. `--ref REV`: REV's tree too (a temporary worktree),
// `--processes` fresh processes of each, alternating.
import { spawn, execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { worktreeOf } from "./ref-worktree.js";

const { values } = parseArgs({
  options: {
    drains: { type: "string", default: "8" },
    jobs: { type: "string", default: "20000" },
    ref: { type: "string" },
    processes: { type: "string", default: "2" },
  },
});

/** One drain as traced: its deoptimizations ("function (reason)") and its compiles. */
interface Traced {
  deopts: string[];
  compiles: number;
}

/** The drains of one trace: counted between "drain N: enqueued, draining" and "drain N after …". */
function countTrace(trace: string): Traced[] {
  const out: Traced[] = [];
  let current: Traced | undefined;
  for (const line of trace.split("\n")) {
    if (/^drain \d+: enqueued, draining/.test(line)) {
      current = { deopts: [], compiles: 0 };
      continue;
    }
    if (current === undefined) continue;
    if (/^drain +\d+ after/.test(line)) {
      out.push(current);
      current = undefined;
    } else if (line.startsWith("[bailout (kind: deopt-eager") || line.startsWith("[bailout (kind: deopt-soft")) {
      const name = /<JSFunction (\S*)/.exec(line)?.[1] ?? "?";
      const reason = /reason: ([^)]*)\)/.exec(line)?.[1] ?? "?";
      current.deopts.push(`${name || "(anonymous)"} (${reason})`);
    } else if (line.startsWith("[completed compiling")) {
      current.compiles++;
    }
  }
  return out;
}

function traced(dir: string): Promise<Traced[]> {
  const argv = ["--trace-opt", "--trace-deopt", "--import", "tsx", "bench/drain-warmup.ts"];
  argv.push("--drains", values.drains as string, "--jobs", values.jobs as string);
  return new Promise((done, fail) => {
    const c = spawn(process.execPath, argv, { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    c.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    c.on("exit", (code) => (code === 0 ? done(countTrace(out)) : fail(new Error(`probe in ${dir}: exit ${code}`))));
  });
}

function print(name: string, drains: Traced[]): void {
  const cell = (n: number) => String(n).padStart(4);
  const total = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  console.log(`${name}`);
  console.log(`  drain    ${drains.map((_, i) => cell(i + 1)).join(" ")}`);
  const deopts = drains.map((d) => d.deopts.length);
  const compiles = drains.map((d) => d.compiles);
  console.log(`  deopts   ${deopts.map(cell).join(" ")}   total ${total(deopts)}`);
  console.log(`  compiles ${compiles.map(cell).join(" ")}   total ${total(compiles)}`);
  drains.forEach((d, i) => {
    if (d.deopts.length > 0) console.log(`    drain ${i + 1}: ${d.deopts.join(", ")}`);
  });
}

const here = resolve(fileURLToPath(import.meta.url), "../..");
if (values.ref === undefined) {
  print("this tree", await traced(here));
} else {
  const other = worktreeOf(here, values.ref);
  try {
    // The ref may predate the probe: run this one against its src/.
    execFileSync("cp", [join(here, "bench/drain-warmup.ts"), join(other.dir, "bench/")]);
    const trees = [
      { name: values.ref, dir: other.dir },
      { name: "this tree", dir: here },
    ];
    const processes = Number(values.processes);
    for (let p = 0; p < processes; p++) {
      for (const tree of p % 2 === 0 ? trees : [...trees].reverse()) {
        print(`${tree.name}, process ${p + 1}`, await traced(tree.dir));
      }
    }
  } finally {
    other.remove();
  }
}
