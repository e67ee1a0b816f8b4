// The per-step CPU of a workflow step's pieces that src/workflows/execute.ts and src/protocol/define.ts
// take fast paths for (issue 46: workflow steps/s without persistence), this tree against a git ref, in one
// process, the trees' order alternating round by round; ns a step, medians and min–max of the rounds:
//   record   a completed step's record text and the value handed on: a template and the value itself
//            (execute.ts completedHead, sameOnceParsed) against JSON.stringify, a slice and JSON.parse
//   encode   a workflow call's ARGV for 100 one-step commits (define.ts: a group's text fields with no
//            path made for them, its fields listed once)
//   decode   the call's reply: 100 committed flags and its tuple (define.ts: number lists, tuple fields)
// The whole step is bench/workflow-rate.ts' figure; these say which piece moved.
//   npx tsx bench/workflow-step-cpu.ts --ref main --rounds 7 --iterations 2000
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { median, spread } from "./alternating.js";
import { worktreeOf } from "./ref-worktree.js";

const { values } = parseArgs({
  options: {
    ref: { type: "string", default: "main" },
    rounds: { type: "string", default: "7" },
    iterations: { type: "string", default: "2000" },
  },
});
const rounds = Number(values.rounds);
const iterations = Number(values.iterations);
const STEPS = 100;

type Codec = {
  encode(call: unknown, keys: object, args: object): unknown;
  decode(call: unknown, reply: unknown): unknown;
  call: unknown;
};

async function codecOf(tree: string): Promise<Codec> {
  const define = await import(join(tree, "src/protocol/define.ts"));
  const protocol = await import(join(tree, "src/protocol/index.ts"));
  return { encode: define.encode, decode: define.decode, call: protocol.workflow_tick };
}

const commits = Array.from({ length: STEPS }, (_, i) => ({
  id: `01J${String(i).padStart(23, "0")}`,
  fence: "7",
  disposition: "c",
  extra: "",
  steps: [
    {
      name: `s${i % 10}`,
      record: `{"status":"completed","seq":${i % 10},"attempts":1,"startedAt":1764450000000,"endedAt":1764450000001,"result":${i}}`,
    },
  ],
  parks: [],
}));
const reply = [1, 1764450000001, Array.from({ length: STEPS }, () => 1), [], 1, []];

/** ns a step of `fn` run `iterations` times over STEPS steps. */
function nsPerStep(fn: () => void): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - started) / (iterations * STEPS);
}

function recordStringified(): void {
  for (let i = 0; i < STEPS; i++) {
    const record: Record<string, unknown> = { status: "completed", seq: i, attempts: 1, startedAt: 1764450000000 + i };
    record.endedAt = 1764450000001 + i;
    const text = JSON.stringify(i);
    const head = JSON.stringify(record);
    record.result = JSON.parse(text);
    if (`${head.slice(0, -1)},"result":${text}}`.length === 0) throw new Error("empty");
  }
}

async function recordTemplated(tree: string): Promise<() => void> {
  const { completedHead, sameOnceParsed } = await import(join(tree, "src/workflows/execute.ts"));
  return () => {
    for (let i = 0; i < STEPS; i++) {
      const startedAt = 1764450000000 + i;
      const endedAt = 1764450000001 + i;
      const text = JSON.stringify(i);
      const result = sameOnceParsed(i) ? i : JSON.parse(text);
      const record = { status: "completed", seq: i, attempts: 1, startedAt, endedAt, result };
      if (`${completedHead(i, 1, startedAt, endedAt)},"result":${text}}`.length === 0 || !record)
        throw new Error("empty");
    }
  };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const repo = fileURLToPath(new URL("..", import.meta.url));
const ref = worktreeOf(repo, values.ref);
try {
  const trees = [
    { label: values.ref, codec: await codecOf(ref.dir), record: recordStringified },
    { label: "this tree", codec: await codecOf(repo), record: await recordTemplated(repo) },
  ];
  const keys = { ticks: "p:ticks", lease: "p:lease:t" };
  const args = { tickId: "t", call: 1, claim: 20, retentionMs: 86_400_000, commits };
  const samples = new Map(
    trees.map((t) => [t.label, { record: [] as number[], encode: [] as number[], decode: [] as number[] }]),
  );
  console.log(
    `A workflow step's pieces, ns a step over ${iterations} × ${STEPS} steps, ${rounds} rounds alternating; load average at start ${load()}`,
  );
  for (let round = 0; round <= rounds; round++) {
    for (const t of round % 2 === 0 ? trees : [...trees].reverse()) {
      const record = nsPerStep(t.record);
      const encode = nsPerStep(() => t.codec.encode(t.codec.call, keys, args));
      const decode = nsPerStep(() => t.codec.decode(t.codec.call, reply));
      // Round 0 warms the JIT up and is not counted.
      if (round === 0) continue;
      const s = samples.get(t.label)!;
      s.record.push(record);
      s.encode.push(encode);
      s.decode.push(decode);
    }
  }
  console.table(
    trees.map((t) => {
      const s = samples.get(t.label)!;
      const row = (xs: number[]) => `${median(xs).toFixed(0)} (${spread(xs.map((x) => Math.round(x)))})`;
      return { tree: t.label, record: row(s.record), encode: row(s.encode), decode: row(s.decode) };
    }),
  );
  console.log(`load average at end ${load()}`);
} finally {
  ref.remove();
}
