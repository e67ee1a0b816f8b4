// What a lane step (lib/tick/replay-call.lua: two steps in flight over HTTP)
// costs Redis, against a git ref: Redis' CPU time (INFO cpu, user + sys)
// over the steps, per step of `batch` jobs of about
// `bytes` each, acking the batch fetched two steps before (a tick's list
// holds about two batches). Trees alternate round by round on one private
// redis-server (no persistence, its own port), so other load moves both alike.
//   npx tsx bench/lane-step-lua.ts --ref dda8a24c --rounds 7 --steps 200 --batch 50 --bytes 300 [--laneless]
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { answers, freePort } from "../src/platforms/node/find-redis.js";
import { worktreeOf } from "./ref-worktree.js";

const { values } = parseArgs({
  options: {
    ref: { type: "string", default: "main" },
    rounds: { type: "string", default: "7" },
    steps: { type: "string", default: "300" },
    batch: { type: "string", default: "50" },
    bytes: { type: "string", default: "300" },
    // Steps of no lane (one in flight, numbered in order): the control, where both trees run the same Lua.
    laneless: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
const steps = Number(values.steps);
const batch = Number(values.batch);
const bytes = Number(values.bytes);
const here = fileURLToPath(new URL("..", import.meta.url));

/** Redis' CPU so far (INFO cpu, user + sys, µs): CPU time, which other processes' load stretches far less than the wall clock. */
async function redisCpuUsec(redis: Redis): Promise<number> {
  const info = await redis.info("cpu");
  const read = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (read("used_cpu_user") + read("used_cpu_sys")) * 1e6;
}

/** µs of script time a lane step, in `tree`, under `prefix`. */
async function measure(tree: string, url: string, admin: Redis, prefix: string): Promise<number> {
  const protocol = await import(join(tree, "src/protocol/index.ts"));
  const { encode } = await import(join(tree, "src/protocol/define.ts"));
  const { runScript } = await import(join(tree, "src/redis/adapter.ts"));
  const { ioredisAdapter } = await import(join(tree, "src/redis/ioredis.ts"));
  const { beginKeys, beginNamed } = await import(join(tree, "test/helpers/begin-args.ts"));
  const { rawAcks, stepArgs, tickKeys } = await import(join(tree, "test/helpers/tick-calls.ts"));
  const client = new Redis(url);
  const adapter = ioredisAdapter(client);
  const run = async (call: unknown, keys: object, args: object) => {
    const e = encode(call, keys, args);
    return runScript(
      adapter,
      (call as { script: unknown }).script,
      e.keys.map((k: string) => prefix + k),
      [prefix, ...e.args],
      { count: 0 },
      10_000,
    );
  };
  const pad = "x".repeat(bytes);
  const jobs = Array.from({ length: (steps + 1) * batch }, (_, i) =>
    JSON.stringify({ class: "work", args: [i, pad], jid: `j${String(i).padStart(23, "0")}`, queue: "default" }),
  );
  for (let i = 0; i < jobs.length; i += 1000) await admin.rpush(`${prefix}queue:default`, ...jobs.slice(i, i + 1000));
  const options = { tick: "t1", leaseMs: 60_000, batch };
  await run(protocol.begin, beginKeys(options), beginNamed(options));
  // Warm the script cache outside the measure.
  await run(protocol.step, tickKeys("t1"), stepArgs({ tick: "t1", leaseMs: 60_000, call: "2a/0/0", batch: 0 }));
  const before = await redisCpuUsec(admin);
  for (let s = 1; s <= steps; s++) {
    // Acks the batch fetched two steps before: jobs (s - 2) * batch … (s - 1) * batch - 1 (the first, begin's).
    const acked = s >= 2 ? jobs.slice((s - 2) * batch, (s - 1) * batch) : [];
    const header = values.laneless ? `${s + 2}/0/0` : `${s + 2}${s % 2 === 1 ? "b" : "a"}/0/0`;
    await run(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: 60_000, call: header, batch, acks: rawAcks({ default: acked }) }),
    );
  }
  const after = await redisCpuUsec(admin);
  client.disconnect();
  const keys = await admin.keys(`${prefix}*`);
  for (let i = 0; i < keys.length; i += 500) await admin.del(...keys.slice(i, i + 500));
  return (after - before) / steps;
}

async function main(): Promise<void> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
  const ref = worktreeOf(here, values.ref!);
  try {
    for (let i = 0; i < 50 && !(await answers(url, 200)); i++) await new Promise((r) => setTimeout(r, 100));
    const admin = new Redis(url);
    console.log(
      `load average at start: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    const trees = [
      { name: values.ref!, dir: ref.dir },
      { name: "this tree", dir: here },
    ];
    const per: number[][] = trees.map(() => []);
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order) per[k]!.push(await measure(trees[k]!.dir, url, admin, `lsl${r}${k}:`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.table(
      trees.map((t, k) => ({
        tree: t.name,
        "Redis CPU µs a lane step (median)": median(per[k]!).toFixed(1),
        "min–max": `${Math.min(...per[k]!).toFixed(1)}–${Math.max(...per[k]!).toFixed(1)}`,
      })),
    );
    const ratios = per[1]!.map((v, r) => v / per[0]![r]!);
    console.log(
      `this tree / ${values.ref}: median ${median(ratios).toFixed(3)} (rounds: ${ratios.map((x) => x.toFixed(3)).join(" ")})`,
    );
    console.log(
      `load average at end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    admin.disconnect();
  } finally {
    ref.remove();
    if (server.pid !== undefined) process.kill(server.pid, "SIGTERM");
  }
}

await main();
