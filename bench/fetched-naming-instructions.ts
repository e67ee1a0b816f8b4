// npx tsx bench/fetched-naming-instructions.ts [--ref main] [--jobs 100] [--rounds 2000]
// The client's instructions a job from a step's fetched group to the names its ack gives it: decoding
// the joined value (src/protocol/define.ts `texts`), readFetched and nameJobsByRef (src/tick/passes/).
// A job read with U+FFFD (bytes that are not valid UTF-8) is named apart, and the check runs once a
// joined value, not once a job: a check a job cost some 60 ns. Counted by valgrind's callgrind around
// the measured rounds only (the warm-up and the start are not counted), for this tree and `--ref REV`
// (a temporary worktree), each in its own process; an instruction count is the same from run to run
// where a timed loop moves by ±20 % on a shared machine. Shapes: ASCII jobs, jobs holding characters
// past Latin-1 (valid UTF-8), and jobs holding U+FFFD. Needs valgrind (Debian's package).
import { callgrindCount } from "./callgrind.js";
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { worktreeOf } from "./ref-worktree.js";

const { values } = parseArgs({
  options: {
    ref: { type: "string" },
    jobs: { type: "string", default: "100" },
    rounds: { type: "string", default: "2000" },
    child: { type: "string" },
  },
});
const jobs = Number(values.jobs);
const rounds = Number(values.rounds);
const SHAPES = ["ascii", "non-latin1", "replaced"] as const;
type Shape = (typeof SHAPES)[number];

/** `jobs` no-op jobs of a shape, as one joined value (a step's reply group). */
function groupOf(shape: Shape): string {
  const name = { ascii: "noop", "non-latin1": "nöop€", replaced: "noop\uFFFD" }[shape];
  const texts = Array.from({ length: jobs }, (_, n) =>
    JSON.stringify({ class: name, args: [n], jid: `jid${n}`, queue: "default", created_at: 1.5, enqueued_at: 1.5 }),
  );
  return texts.join("\x1e");
}

if (values.child !== undefined) await countedChild(values.child as Shape);
else await countAll();

/** In the child, under callgrind: warm-up rounds, then `rounds` counted between two toggles. */
async function countedChild(shape: Shape): Promise<void> {
  const { decodePart } = await import("../src/protocol/define.js");
  const { fetched } = await import("../src/protocol/sections.js");
  const fetch = await import("../src/tick/passes/fetch.js");
  const refs = (await import("../src/tick/passes/ack-refs.js")) as Record<string, unknown>;
  // Trees before this bench called it nameLargeJobs.
  const name = (refs.nameJobsByRef ?? refs.nameLargeJobs) as (jobs: unknown[]) => Promise<void>;
  const reply = ["default", groupOf(shape), []];
  const round = async () => name(fetch.readFetched(decodePart(fetched, reply) as never));
  for (let i = 0; i < rounds; i++) await round();
  const toggle = (on: boolean) => execFileSync("callgrind_control", ["-i", on ? "on" : "off", String(process.pid)]);
  toggle(true);
  for (let i = 0; i < rounds; i++) await round();
  toggle(false);
}

async function countAll(): Promise<void> {
  const here = resolve(fileURLToPath(new URL("..", import.meta.url)));
  const trees = [{ name: "this tree", dir: here }];
  const ref = values.ref === undefined ? undefined : worktreeOf(here, values.ref);
  if (ref !== undefined) {
    execFileSync("cp", [join(here, "bench/fetched-naming-instructions.ts"), join(ref.dir, "bench/")]);
    trees.unshift({ name: values.ref!, dir: ref.dir });
  }
  console.log(`instructions a job (callgrind): decode a joined group of ${jobs}, readFetched, nameJobsByRef`);
  try {
    for (const shape of SHAPES) {
      for (const tree of trees)
        console.log(
          `  ${shape.padEnd(10)} ${tree.name.padEnd(10)} ${(await count(tree.dir, shape)).toLocaleString("en")}`,
        );
    }
  } finally {
    ref?.remove();
  }
}

async function count(dir: string, shape: Shape): Promise<number> {
  const node = [process.execPath, "--import", "tsx", "bench/fetched-naming-instructions.ts", "--child", shape];
  node.push("--jobs", String(jobs), "--rounds", String(rounds));
  const { instructions } = await callgrindCount(node, dir, `${shape} in ${dir}`);
  return Math.round(instructions / (jobs * rounds));
}
