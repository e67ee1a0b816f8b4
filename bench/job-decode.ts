// npx tsx bench/job-decode.ts [--jobs 20000 --rounds 5]
// The instructions a tick's decodeJob costs a job in tickq's own shape (src/job/own-shape.ts: a
// regular expression for the fields, JSON.parse for args alone) against JSON.parse of the whole
// text (decodeJob before), counted by valgrind's callgrind (every thread: V8 compiles beside), after a warm-up in
// which V8 optimizes both. The jobs are the no-op drain's: `{"class":"noop","args":[i],...}` with
// Redis-time stamps, each its own string as a reply brings it. Needs valgrind.
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { callgrindCount } from "./callgrind.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    rounds: { type: "string", default: "5" },
    child: { type: "string" },
  },
});
const jobs = Number(values.jobs);
const rounds = Number(values.rounds);

if (values.child !== undefined) await decodeCounted(values.child);
else await countBoth();

/** In the child, under callgrind: `rounds` passes over the jobs, counted after as many unmeasured. */
async function decodeCounted(way: string): Promise<void> {
  const { decodeJob } = await import("../src/job/codec.js");
  const defined = { noop: () => {} };
  const decode =
    way === "json.parse" ? (raw: string) => JSON.parse(raw) as unknown : (raw: string) => decodeJob(raw, defined);
  // Each text its own flat string, as ioredis hands a reply's jobs over.
  const texts = Array.from({ length: jobs }, (_, i) => {
    const stamp = `1796034077.${String(100 + (i % 900))}`;
    const job = `{"class":"noop","args":[${i}],"jid":"${i.toString(16).padStart(24, "0")}","queue":"default","retry":true,"created_at":${stamp},"enqueued_at":${stamp}}`;
    return Buffer.from(job).toString();
  });
  let kept = 0;
  const pass = () => {
    for (let r = 0; r < rounds; r++) for (let k = 0; k < texts.length; k++) if (decode(texts[k]!) !== undefined) kept++;
  };
  pass();
  const toggle = (on: boolean) => execFileSync("callgrind_control", ["-i", on ? "on" : "off", String(process.pid)]);
  toggle(true);
  pass();
  toggle(false);
  if (kept !== 2 * rounds * jobs) throw new Error(`decoded ${kept} of ${2 * rounds * jobs}`);
}

async function countBoth(): Promise<void> {
  console.log(
    `instructions a job to decode (callgrind, every thread, after as many passes unmeasured), ${jobs} no-op jobs × ${rounds}`,
  );
  for (const way of ["json.parse", "decodeJob"]) {
    const argv = [process.execPath, "--import", "tsx", "bench/job-decode.ts", "--child", way];
    argv.push("--jobs", String(jobs), "--rounds", String(rounds));
    const { instructions } = await callgrindCount(argv, process.cwd(), way);
    const label = way === "json.parse" ? "JSON.parse of the whole text" : "decodeJob (own shape)";
    console.log(`  ${label.padEnd(30)} ${Math.round(instructions / (rounds * jobs)).toLocaleString("en")}`);
  }
}
