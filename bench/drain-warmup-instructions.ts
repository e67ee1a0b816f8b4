// npx tsx bench/drain-warmup-instructions.ts [--drains 8 --jobs 20000] [--ref REV]
// bench/drain-warmup.ts under valgrind's callgrind: the tick process's instructions a job in each
// drain of one process, and where they went: the JavaScript V8 compiled (its code has no symbol),
// the interpreter and the baseline code's builtins (code V8 has not optimized yet), the optimizing
// compiler's threads (TurboFan), the garbage collector, and the rest (builtins, Node, libuv, the
// C library): the warm-up a drain pays and what it pays it in. The load of other processes moves a
// count less than a timed drain, but not to a percent: which compile and which GC falls inside a
// drain rather than in the enqueue before it depends on how the threads were scheduled (two runs'
// first drains: 39,837 and 66,525 instructions a job). Compare trees over several runs.
// Under callgrind the process runs some 50 times slower and one thread at a time, so the compiler
// finishes, as measured in the main thread's work, sooner than it does natively on 2 busy cores:
// the counts show the warm-up's cost, the timed probe (bench/drain-warmup.ts) its length.
// `--ref REV`: REV's tree too (a temporary worktree, this node_modules linked), counted after this.
// Needs valgrind (Debian's package).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { worktreeOf } from "./ref-worktree.js";

const { values } = parseArgs({
  options: {
    drains: { type: "string", default: "8" },
    jobs: { type: "string", default: "20000" },
    ref: { type: "string" },
  },
});
const jobs = Number(values.jobs);

/** What a function's name says its instructions were. */
const KINDS: [string, RegExp][] = [
  [
    "compiler",
    /v8::internal::(compiler|maglev|turboshaft)::|OptimizingCompileDispatcher|TurbofanCompilationJob|v8::internal::(Pipeline|Instruction|RegisterAllocat|Assembler|CodeGenerator|Zone|AccountingAllocator|SourcePosition)/,
  ],
  [
    "GC",
    /Scaveng|Marking|MarkCompact|Sweep|Evacuat|v8::internal::Heap|MemoryChunk|ActiveSystemPages|SizeFromMap|PretenuringHandler|RememberedSet|IterateObjectCache|popcount|RecordMigrated|IteratePointers|SemiSpace|NewSpace|PagedSpace|GlobalHandles|SlotSet|TypedSlot/,
  ],
  // Code V8 has not optimized: the interpreter's handlers and the builtins baseline code calls.
  ["interpreter", /Builtins_(Interpreter|\w*Handler\b|\w*_Baseline|BaselineOutOfLinePrologue|BaselineLeaveFrame)/],
  // Inline caches' slow paths, which unoptimized code takes for every property access.
  ["IC", /Builtins_(Load|Store|KeyedLoad|KeyedStore|KeyedHas|LoadGlobal|StoreGlobal|DefineNamedOwn|DefineKeyedOwn)IC/],
];

const here = resolve(fileURLToPath(import.meta.url), "../..");
const ref = values.ref === undefined ? undefined : worktreeOf(here, values.ref);
try {
  if (ref) execFileSync("cp", [join(here, "bench/drain-warmup.ts"), join(ref.dir, "bench/")]);
  const trees = [{ name: "this tree", dir: here }, ...(ref ? [{ name: values.ref!, dir: ref.dir }] : [])];
  for (const tree of trees) {
    console.log(
      `\n${tree.name}: the tick process's instructions a job (callgrind), one process, drains of ${jobs} after a warm-up of ${Math.ceil(jobs / 10)}`,
    );
    const drains = await countDrains(tree.dir);
    console.table(
      drains.map((d, i) => {
        const row: Record<string, string | number> = { drain: i + 1, total: Math.round(d.total / jobs) };
        for (const [kind] of KINDS) row[kind] = Math.round((d.byKind.get(kind) ?? 0) / jobs);
        row["optimized JS"] = Math.round((d.byKind.get("optimized JS") ?? 0) / jobs);
        row.other = Math.round((d.byKind.get("other") ?? 0) / jobs);
        return row;
      }),
    );
  }
} finally {
  ref?.remove();
}

interface Counted {
  total: number;
  byKind: Map<string, number>;
}

/** Runs the probe under callgrind in `dir`; each drain's dump, its instructions by kind. */
async function countDrains(dir: string): Promise<Counted[]> {
  const out = mkdtempSync(join(tmpdir(), "tickq-warmup-cg-"));
  try {
    const args = ["--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${join(out, "cg.out")}`];
    const probe = [process.execPath, "--import", "tsx", "bench/drain-warmup.ts", "--counted", "--json"];
    probe.push("--drains", values.drains!, "--jobs", String(jobs));
    await new Promise<void>((done, fail) => {
      const child = spawn("valgrind", [...args, ...probe], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("exit", (code) =>
        code === 0 ? done() : fail(new Error(`probe: exit ${code}\n${stderr.slice(-2000)}`)),
      );
    });
    const dumps = readdirSync(out)
      .filter((f) => /^cg\.out\.\d+$/.test(f))
      .sort((a, b) => Number(a.split(".").at(-1)) - Number(b.split(".").at(-1)));
    return dumps.map((f) => byKind(join(out, f)));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** One dump's instructions by kind, from callgrind_annotate's functions (self cost). */
function byKind(file: string): Counted {
  const text = execFileSync("callgrind_annotate", ["--threshold=100", "--auto=no", file], {
    maxBuffer: 1 << 28,
  }).toString();
  const counted: Counted = { total: 0, byKind: new Map() };
  for (const line of text.split("\n")) {
    const m = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (!m || m[2] === "PROGRAM TOTALS") continue;
    const ir = Number(m[1]!.replaceAll(",", ""));
    const name = m[2]!;
    // V8's generated code has no symbol: callgrind names it by its address.
    const kind = /^\?\?\?:0x[0-9a-f]+/.test(name)
      ? "optimized JS"
      : (KINDS.find(([, re]) => re.test(name))?.[0] ?? "other");
    counted.total += ir;
    counted.byKind.set(kind, (counted.byKind.get(kind) ?? 0) + ir);
  }
  return counted;
}
