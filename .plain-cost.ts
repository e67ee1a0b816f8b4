// Throwaway: Redis-side µs per plain job (INFO commandstats on a private
// redis-server) and the drain rate, for the src given as argv[2].
import { Redis } from "ioredis";
const root = process.argv[2]!;
const port = Number(process.argv[3] ?? 6391);
const mode = process.argv[4] ?? "plain";
const { createTickq } = await import(`${root}/src/index.ts`);
const { ioredisAdapter } = await import(`${root}/adapters/ioredis.ts`);
const r = new Redis({ port });
const N = 20_000;
const jobs = { noop: { perform: () => {}, uniqueKey: ([i]: [number]) => `k${i}` } };
const results: string[] = [];
for (let run = 0; run < 3; run++) {
  await r.flushall();
  const tq = createTickq({ redis: ioredisAdapter(r), prefix: "b:", jobs });
  for (let i = 0; i < N; i += 1000) {
    await tq.enqueueBulk(Array.from({ length: 1000 }, (_, k) => ({ name: "noop", args: [i + k], ...(mode === "flow" ? { unique: "while-executing" } : {}) })));
  }
  await r.config("RESETSTAT");
  const t0 = performance.now();
  let done = 0;
  while (done < N) done += (await tq.tick({ batch: 100, concurrency: 100, budgetMs: 30_000 })).succeeded;
  const ms = performance.now() - t0;
  const stats = await r.info("commandstats");
  const line = (name: string) => stats.split("\n").find((l) => l.startsWith(`cmdstat_${name}:`)) ?? "";
  const usec = (l: string) => Number(/usec=(\d+)/.exec(l)?.[1] ?? 0);
  const calls = (l: string) => Number(/calls=(\d+)/.exec(l)?.[1] ?? 0);
  const ev = line("evalsha");
  if (run === -1) console.log(stats.split("\n").filter((l) => l.startsWith("cmdstat")).map((l) => l.replace(/,rejected.*/, "")).join("\n"));
  results.push(`${mode} run ${run}: drain ${Math.round(N / (ms / 1000))} jobs/s; evalsha ${calls(ev)} calls, ${(usec(ev) / N).toFixed(2)} µs/job in Redis, ${(usec(ev) / calls(ev)).toFixed(0)} µs/call`);
}
console.log(results.join("\n"));
r.disconnect();
