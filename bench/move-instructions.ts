// Redis' instructions move.lua (the jobs API's retry, run now, delete and bulk moves) costs a plain
// job, counted by valgrind's callgrind on a private redis-server, for this tree and `--ref REV`: a job
// read with U+FFFD is named apart (lib/admin/find-as-read.lua), and a plain one must cost no more
// than before. Each tree gets its own server; instrumentation is on around the moves only: `--jobs`
// dead jobs retried to their queue, then deleted from it by distance, 500 a call (as retryAll and
// deleteAll send them). An instruction count is the same for the same scripts and calls, whatever
// else the machine runs. Needs valgrind.
//   npx tsx bench/move-instructions.ts [--ref main] [--jobs 5000]
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { freePort } from "../src/platforms/node/find-redis.js";
import { callgrindRedis } from "./callgrind.js";
import { worktreeOf } from "./ref-worktree.js";

const { values } = parseArgs({
  options: { ref: { type: "string", default: "main" }, jobs: { type: "string", default: "5000" } },
});
const jobs = Number(values.jobs);
const CHUNK = 500;
const here = fileURLToPath(new URL("..", import.meta.url));

/** Instructions a job of move.lua's calls in `tree`: a retry from the dead set, then a delete from the queue. */
async function count(tree: string): Promise<number> {
  const out = join(tmpdir(), `tickq-move-cg-${process.pid}-${Date.now()}.out`);
  const { server, url } = await callgrindRedis(await freePort(), out);
  try {
    const protocol = await import(join(tree, "src/protocol/index.ts"));
    const { encode } = await import(join(tree, "src/protocol/define.ts"));
    const { runScript } = await import(join(tree, "src/redis/adapter.ts"));
    const { ioredisAdapter } = await import(join(tree, "src/redis/ioredis.ts"));
    const client = new Redis(url);
    const adapter = ioredisAdapter(client);
    const prefix = "mi:";
    const move = (token: string, batch: object[]) => {
      const e = encode(protocol.move, { queues: "queues" }, { token, keepMs: 60_000, jobs: batch });
      const keys = e.keys.map((k: string) => prefix + k);
      return runScript(adapter, protocol.move.script, keys, [prefix, ...e.args], { count: 0 }, 10_000);
    };
    const texts = Array.from({ length: jobs }, (_, i) =>
      JSON.stringify({ class: "work", args: [i, "x".repeat(200)], jid: `j${i}`, queue: "default", retry_count: 2 }),
    );
    for (let i = 0; i < jobs; i += 1000)
      await client.zadd(`${prefix}dead`, ...texts.slice(i, i + 1000).flatMap((t, k) => [i + k, t]));
    await move("warm", [{ from: "dead", job: "none", action: "delete", push: "", distance: "" }]);
    const instrument = (on: boolean) =>
      execFileSync("callgrind_control", ["-i", on ? "on" : "off", String(server.pid)], { stdio: "ignore" });
    instrument(true);
    for (let i = 0; i < jobs; i += CHUNK) {
      const batch = texts
        .slice(i, i + CHUNK)
        .map((job) => ({ from: "dead", job, action: "push", push: "", distance: "" }));
      await move(`r${i}`, batch);
    }
    instrument(false);
    // Pushed to the tail in order: job k is at distance k from the head.
    const queued = (await client.lrange(`${prefix}queue:default`, 0, -1)).reverse();
    instrument(true);
    for (let i = 0; i < jobs; i += CHUNK) {
      // The head's jobs go first, so each is at distance k - i once those before it are gone.
      const batch = queued
        .slice(i, i + CHUNK)
        .map((job, k) => ({ from: "queue:default", job, action: "delete", push: "", distance: String(k) }));
      await move(`d${i}`, batch);
    }
    instrument(false);
    if ((await client.llen(`${prefix}queue:default`)) !== 0) throw new Error("the deletes missed jobs");
    client.disconnect();
    const ended = new Promise((r) => server.once("exit", r));
    server.kill("SIGTERM");
    await ended;
    const text = readFileSync(out, "utf8");
    const totals = /^totals: (\d+)/m.exec(text)?.[1] ?? /^summary: (\d+)/m.exec(text)?.[1];
    return Number(totals) / jobs;
  } finally {
    if (server.exitCode === null) server.kill("SIGTERM");
    rmSync(out, { force: true });
  }
}

const ref = worktreeOf(here, values.ref!);
try {
  console.log(
    `Redis instructions a plain job in move.lua: ${jobs} jobs retried from dead, then deleted from the queue by distance, ${CHUNK} a call`,
  );
  const before = await count(ref.dir);
  const after = await count(here);
  console.log(
    `  ${values.ref!.padEnd(10)} ${Math.round(before).toLocaleString("en")} instructions a job (retry + delete)`,
  );
  console.log(`  this tree  ${Math.round(after).toLocaleString("en")} instructions a job (retry + delete)`);
  console.log(`this tree vs ${values.ref}: ${((after / before - 1) * 100).toFixed(2)} %`);
} finally {
  ref.remove();
}
process.exit(0);
