// npm run bench:peers: tickq against its peers, each installed from npm in this folder (its own
// package.json and lock, `npm ci --prefix bench/peers`), never in tickq's dependencies. Rows:
//   jobs       no-op jobs (--jobs 20000,100000): tickq, one tick loop at batch 100, against BullMQ 6
//              (Worker concurrency 50) on one private Redis (bench/peers/jobs.ts)
//   ordered    5,000 payloads over 100 ids, one payload per execution, enqueue included, against
//              groupmq (concurrency 50) on the same Redis (bench/peers/ordered.ts)
//   workflows  500 runs × 10 no-op steps and a lone run's latency: tickq on Redis without persistence
//              and with appendfsync always, Restate's server and SDK, DBOS Transact on PostgreSQL
//              (PG_URL, default 127.0.0.1:5432), each at its durability, printed beside its row
//              (bench/peers/workflows.ts)
// Every row alternates its systems round after round (bench/alternating.ts): medians, min–max and
// the ratios of each round's rates. The machine's load average is printed at the start and the end.
//   --rounds 3  --only jobs,ordered,workflows  --jobs 20000,100000
//   --ordered-payloads 5000 --ordered-ids 100  --workflow-runs 500 --workflow-steps 10 --lone 5
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { onPrivateRedis } from "../alternating.js";
import { runJobRows } from "./jobs.js";
import { runOrderedRow } from "./ordered.js";
import { tickqWorkflowSystem } from "./tickq-workflows.js";
import type { WorkflowSystem } from "./workflow-system.js";
import { runWorkflowRows } from "./workflows.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    only: { type: "string", default: "jobs,ordered,workflows" },
    jobs: { type: "string", default: "20000,100000" },
    "ordered-payloads": { type: "string", default: "5000" },
    "ordered-ids": { type: "string", default: "100" },
    "workflow-runs": { type: "string", default: "500" },
    "workflow-steps": { type: "string", default: "10" },
    lone: { type: "string", default: "5" },
  },
});
const rounds = Number(values.rounds);
const only = new Set(values.only.split(","));

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");
const versionOf = (path: string) =>
  (JSON.parse(readFileSync(new URL(`${path}/package.json`, import.meta.url), "utf8")) as { version: string }).version;

console.log(`load average at start: ${load()} (1, 5, 15 min)`);
console.log(
  `Node ${process.versions.node}; BullMQ ${versionOf("../../node_modules/bullmq")}, groupmq ${versionOf("node_modules/groupmq")}, ` +
    `Restate server ${versionOf("node_modules/@restatedev/restate-server")} and SDK ${versionOf("node_modules/@restatedev/restate-sdk")}, ` +
    `DBOS Transact ${versionOf("node_modules/@dbos-inc/dbos-sdk")}`,
);

// The fsynced Redis first, as before the restart pause spared a Redis on its first start.
const fsynced = only.has("workflows") ? await tickqWorkflowSystem(true) : undefined;
const systems: WorkflowSystem[] = fsynced ? [fsynced] : [];
try {
  if (only.has("jobs") || only.has("ordered")) {
    await onPrivateRedis(async (probe, url) => {
      const version = (await probe.info("server")).match(/redis_version:(\S+)/)?.[1];
      console.log(`\nRedis ${version}, private, no persistence, at ${url}: tickq and its job peers on the same one`);
      if (only.has("jobs")) await runJobRows(url, probe, values.jobs.split(",").map(Number), rounds);
      if (only.has("ordered"))
        await runOrderedRow(url, probe, {
          payloads: Number(values["ordered-payloads"]),
          ids: Number(values["ordered-ids"]),
          rounds,
        });
    });
  }
  if (fsynced) {
    // The SDK reads its log level when it loads: no line a step on the console, as in production.
    process.env.RESTATE_LOGGING ??= "WARN";
    const { restateSystem } = await import("./restate.js");
    const { dbosSystem } = await import("./dbos.js");
    systems.unshift(await tickqWorkflowSystem(false));
    systems.push(await restateSystem());
    systems.push(await dbosSystem());
    await runWorkflowRows(systems, {
      runs: Number(values["workflow-runs"]),
      steps: Number(values["workflow-steps"]),
      rounds,
      lone: Number(values.lone),
    });
  }
} finally {
  // every server this bench started stops, whatever failed
  for (const s of systems) await s.close();
}

console.log(`\nload average at end: ${load()} (1, 5, 15 min)`);
process.exit(0);
