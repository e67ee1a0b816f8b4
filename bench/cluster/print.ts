// The scaling bench's tables (bench/cluster-scaling.ts): each drain, each
// shape over its rounds (medians; shares from the rounds' sums, with each
// round's range), and the model checked against the measured shapes.
import { plus, type NodeWork, type Run } from "./work.js";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const fmt = (x: number, d = 1) => x.toFixed(d);
const range = (xs: number[], d = 1) =>
  xs.length > 1 ? `${fmt(median(xs), d)} (${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)})` : fmt(xs[0]!, d);
const pct = (part: number, whole: number) => (whole === 0 ? 0 : (100 * part) / whole);
const sum = (nodes: NodeWork[], key: keyof NodeWork) => nodes.reduce((a, n) => a + n[key], 0);

export const redisCpuUsPerJob = (run: Run) => (sum(run.nodes, "cpuMs") * 1_000) / run.jobs;
const busiestCpuUsPerJob = (run: Run) => (Math.max(...run.nodes.map((n) => n.cpuMs)) * 1_000) / run.jobs;

export function printRun(run: Run): void {
  const calls = sum(run.nodes, "calls");
  const lua = sum(run.nodes, "luaUsec");
  const shares = (key: keyof NodeWork) => run.nodes.map((n) => fmt(pct(n[key], sum(run.nodes, key)))).join(" / ");
  console.log(
    `  ${run.label}: ${run.rate.toLocaleString("en")} jobs/s; client ${fmt(run.clientCpuUsPerJob)} µs/job (sys ${fmt(run.clientSysUsPerJob)}, GC ${fmt(run.clientGcUsPerJob, 2)}; waited for a core ${fmt(run.clientWaitUsPerJob)}), ` +
      `Redis ${fmt(redisCpuUsPerJob(run), 2)} µs/job, Lua ${fmt(lua / run.jobs, 2)} µs/job, ` +
      `${fmt(calls / run.jobs, 3)} cmds/job, ${fmt(run.tripsPerJob, 4)} trips/job; ` +
      `switches/1k jobs ${fmt(run.switchesPerKJob.voluntary)} + ${fmt(run.switchesPerKJob.involuntary)} forced; load ${fmt(run.load, 2)}` +
      (run.nodes.length > 1
        ? `; shares % cmds ${shares("calls")}, Lua ${shares("luaUsec")}, CPU ${shares("cpuMs")}`
        : ""),
  );
}

/** A shape over its rounds, against the single-node drains of the same rounds. */
export function printShape(runs: Run[], singles: Run[], partitionsOf: (port: number) => string): void {
  const jobs = runs.reduce((a, r) => a + r.jobs, 0);
  const ratios = runs.map((r, i) => r.rate / singles[i]!.rate);
  console.log(`\n${runs[0]!.label}, ${runs.length} round(s) of ${runs[0]!.jobs.toLocaleString("en")} jobs:`);
  console.log(
    `  drain ${range(
      runs.map((r) => r.rate),
      0,
    )} jobs/s; ${range(ratios, 2)}× the single node's ` +
      `${range(
        singles.map((r) => r.rate),
        0,
      )} in the same rounds`,
  );
  const line = (label: string, rs: Run[]) =>
    `  ${label.padEnd(7)} client CPU ${range(rs.map((r) => r.clientCpuUsPerJob))} µs/job; Redis CPU ` +
    `${range(rs.map(redisCpuUsPerJob), 2)} µs/job (busiest node ${range(rs.map(busiestCpuUsPerJob), 2)}); ` +
    `${range(
      rs.map((r) => sum(r.nodes, "calls") / r.jobs),
      3,
    )} cmds/job; ${range(
      rs.map((r) => sum(r.nodes, "scriptCalls") / r.jobs),
      4,
    )} scripts/job; ${range(
      rs.map((r) => r.tripsPerJob),
      4,
    )} round trips/job`;
  console.log(line("this", runs));
  console.log(line("single", singles));
  const total = runs.map((r) => r.nodes).reduce((a, nodes) => a.map((n, i) => plus(n, nodes[i]!)));
  const roundShares = (i: number, key: keyof NodeWork) => runs.map((r) => pct(r.nodes[i]![key], sum(r.nodes, key)));
  const rows = [
    [
      "node",
      "partitions",
      "commands",
      "share",
      "scripts",
      "Lua ms",
      "Lua share (rounds)",
      "CPU ms",
      "CPU share",
      "CPU µs/job",
      "waited ms",
    ],
    ...total.map((n, i) => [
      String(n.port),
      partitionsOf(n.port),
      n.calls.toLocaleString("en"),
      `${fmt(pct(n.calls, sum(total, "calls")))} %`,
      n.scriptCalls.toLocaleString("en"),
      (n.luaUsec / 1_000).toFixed(0),
      `${fmt(pct(n.luaUsec, sum(total, "luaUsec")))} % (${fmt(Math.min(...roundShares(i, "luaUsec")))}–${fmt(
        Math.max(...roundShares(i, "luaUsec")),
      )})`,
      n.cpuMs.toFixed(0),
      `${fmt(pct(n.cpuMs, sum(total, "cpuMs")))} %`,
      fmt((n.cpuMs * 1_000) / jobs, 2),
      n.waitMs.toFixed(0),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows)
    console.log(`  ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")}`);
}

/**
 * The model: Redis runs scripts on one thread, so a node whose CPU a job is u µs drains at most
 * 1e6 / u jobs/s; spread evenly over N nodes each pays u / N. Checked against the measured shapes:
 * the busiest node's CPU a job at N masters against u / N.
 */
export function printModel(singles: Run[], shapes: { masters: number; partitions: number; runs: Run[] }[]): void {
  const u1 = median(singles.map(redisCpuUsPerJob));
  const c = median(singles.map((r) => r.clientCpuUsPerJob));
  console.log(
    `\nmodel from the single node: u₁ = ${fmt(u1, 2)} µs of Redis CPU a job, c = ${fmt(c)} µs of client CPU a job`,
  );
  console.log("  nodes  Redis-bound jobs/s, spread evenly  one hash tag  tick cores needed");
  for (const n of [1, 2, 3, 4, 6, 8]) {
    const x = (n * 1e6) / u1;
    console.log(
      `  ${String(n).padStart(5)}  ${Math.round(x).toLocaleString("en").padStart(33)}  ${Math.round(1e6 / u1)
        .toLocaleString("en")
        .padStart(12)}  ${fmt((x * c) / 1e6).padStart(17)}`,
    );
  }
  const spread = shapes.filter((s) => s.partitions > 1 || s.masters === 1);
  if (spread.length === 0) return;
  console.log("  check: the busiest master's CPU a job, measured against u₁ / N");
  for (const s of spread) {
    const busiest = median(s.runs.map(busiestCpuUsPerJob));
    const all = median(s.runs.map(redisCpuUsPerJob));
    console.log(
      `  ${s.masters} master(s), ${s.partitions} partition(s): busiest ${fmt(busiest, 2)} µs/job (model ${fmt(
        u1 / s.masters,
        2,
      )}, ${fmt((100 * busiest) / u1, 0)} % of u₁); all masters ${fmt(all, 2)} µs/job; ` +
        `Redis-bound ${Math.round(1e6 / busiest).toLocaleString("en")} jobs/s (model ${Math.round(
          (s.masters * 1e6) / u1,
        ).toLocaleString("en")})`,
    );
  }
}
