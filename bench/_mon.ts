import { Redis } from "ioredis";
import { createTickq } from "../src/index.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { spawn } from "node:child_process";
const server = await startPrivate();
const client = new Redis(server.url);
let executed = 0;
const tq = createTickq({ redis: ioredisAdapter(client), prefix: "o:", jobs: {}, ordered: { index: { perform: () => void (executed += 1) } } });
const wave = (w: number) => Array.from({ length: 100 }, (_, i) => ({ name: "index" as const, id: `id-${i}`, payload: { w, i } }));
const drain = async (until: number) => { while (executed < until) { const r = await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 }); } };
await tq.enqueueOrderedBulk(wave(-1)); await drain(100);
await tq.enqueueOrderedBulk(wave(0)); await drain(200);
const port = new URL(server.url).port;
const mon = spawn("redis-cli", ["-p", port, "monitor"]);
let out = ""; mon.stdout.on("data", (d) => (out += d));
await new Promise((r) => setTimeout(r, 300));
await tq.enqueueOrderedBulk(wave(1)); await drain(300);
await new Promise((r) => setTimeout(r, 300));
mon.kill();
const counts: Record<string, number> = {};
let call = "";
for (const line of out.split("\n")) {
  const m = line.match(/\[(\d+) (lua|[\d.:]+)\] "(\w+)"(?: "([^"]*)")?/); if (!m) continue;
  if (m[2] !== "lua") { call = m[3]!.toLowerCase(); continue; }
  const k = `${m[3]!.toLowerCase()} ${(m[4] ?? "").replace(/id-\d+/, "ID").replace(/[0-9a-f]{16,}/, "X")}`;
  counts[k] = (counts[k] ?? 0) + 1;
}
console.log(Object.entries(counts).sort((a,b)=>b[1]-a[1]).map(([k,v])=>`${v}\t${k}`).join("\n"));
client.disconnect(); await server.stop();
