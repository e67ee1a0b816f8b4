// Memory pressure, on a PRIVATE redis-server (2 MB, no persistence,
// own port and folder): at maxmemory with noeviction, enqueue fails with
// REDIS_FULL and writes nothing, while ticks (allow-oom scripts) still drain
// and free memory; an eviction policy other than noeviction is reported in
// stats().warnings and logged once per process.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { answers, freePort } from "../../../src/platforms/node/find-redis.js";
import { startUpstashLocal, type UpstashLocalServer } from "../../../tools/upstash-local/server.js";
import { createTickq, TickqError, type JobLogger, type JobRegistry } from "../../../src/index.js";
import { onlySelected } from "../../helpers/adapter-names.js";
import { openAdapter, type OpenedAdapter } from "../../helpers/open-adapter.js";

const TOKEN = "memory-test-token";
let server: ChildProcess;
let dir: string;
let url: string;
let admin: Redis;
let rest: UpstashLocalServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tickq-memory-"));
  const port = await freePort();
  url = `redis://127.0.0.1:${port}`;
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"];
  // 4 MB: the script cache of every tickq script takes most of 2 MB, which left room for only ~80 jobs
  // over HTTP, and so too little freed by the drain for the last enqueue's request to fit.
  server = spawn("redis-server", [...args, "--maxmemory", "4mb", "--maxmemory-policy", "noeviction"], {
    stdio: "ignore",
  });
  for (let i = 0; i < 50 && !(await answers(url, 200)); i++) await new Promise((r) => setTimeout(r, 100));
  admin = new Redis(url);
  rest = await startUpstashLocal({ redisUrl: url, token: TOKEN });
});

afterAll(async () => {
  admin?.disconnect();
  await rest?.close();
  if (server?.pid !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    process.kill(server.pid, "SIGTERM");
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function memory(): Promise<{ used: number; max: number }> {
  const info = await admin.info("memory");
  return { used: Number(/used_memory:(\d+)/.exec(info)![1]), max: Number(/maxmemory:(\d+)/.exec(info)![1]) };
}

const cases = onlySelected([
  { name: "ioredis", open: () => openAdapter("ioredis", { redisUrl: url, restUrl: "", restToken: "" }) },
  { name: "upstash", open: () => openAdapter("upstash", { redisUrl: "", restUrl: rest.url, restToken: TOKEN }) },
  { name: "rest", open: () => openAdapter("rest", { redisUrl: "", restUrl: rest.url, restToken: TOKEN }) },
  { name: "node-redis", open: () => openAdapter("node-redis", { redisUrl: url, restUrl: "", restToken: "" }) },
]);

describe.each(cases)("memory pressure over $name (private redis-server)", (adapterCase) => {
  let opened: OpenedAdapter;
  let warned: string[];
  const logger: JobLogger = { info: () => {}, warn: (m) => void warned.push(m), error: (m) => void warned.push(m) };
  const make = <J extends JobRegistry>(jobs: J) =>
    createTickq({ redis: opened.adapter, prefix: "mem:", jobs, logger, replayWindowMs: 1_000, redisTimeoutMs: 5_000 });

  beforeEach(async () => {
    await admin.flushall();
    await admin.config("SET", "maxmemory-policy", "noeviction");
    opened = adapterCase.open();
    warned = [];
  });
  afterEach(async () => {
    await opened.close();
    await admin.config("SET", "maxmemory", "4mb");
    await admin.config("SET", "maxmemory-policy", "noeviction");
    await admin.flushall();
  });

  it("when full, enqueue fails with REDIS_FULL and writes nothing; a tick still drains; then enqueue works again", async () => {
    let ran = 0;
    const tq = make({ fill: () => void ran++ });
    // The scripts Redis caches count in used_memory: a tick and stats() load theirs now, before Redis
    // fills, so that what the drain frees below is measured against jobs, not against the script cache.
    // (Under another prefix: this test's keys stay as if nothing had ticked. The cache is the server's.)
    const warm = createTickq({ redis: opened.adapter, prefix: "mem-warm:", jobs: { fill: () => {} }, logger });
    await warm.tick({ budgetMs: 300 });
    await warm.stats();
    const pad = "x".repeat(2_000);
    let pushed = 0;
    let error: unknown;
    for (let call = 0; call < 500 && error === undefined; call++) {
      try {
        await tq.enqueueBulk(
          Array.from({ length: 20 }, (_, i) => ({ name: "fill" as const, args: [call * 20 + i, pad] })),
        );
        pushed += 20;
      } catch (e) {
        error = e;
      }
    }
    expect(error).toBeInstanceOf(TickqError);
    expect((error as TickqError).code).toBe("REDIS_FULL");
    expect((error as TickqError).message).toMatch(/Redis is full.*maxmemory/);
    expect(pushed).toBeGreaterThan(0);
    expect(await admin.llen("mem:queue:default")).toBe(pushed); // the refused call pushed nothing

    // Full can be fleeting (a request's own buffers count): pin Redis over its limit for what follows.
    await admin.config("SET", "maxmemory", String((await memory()).used - 100_000));
    await expect(admin.set("mem:probe", "x")).rejects.toThrow(/OOM/);
    await expect(tq.enqueue("fill", [0, "small"])).rejects.toMatchObject({ code: "REDIS_FULL" });

    // Stats is read-only and still answers.
    // no eviction warning; the heartbeat's own (nothing ticked yet), and that Redis is full
    expect(await tq.stats()).toMatchObject({
      queues: { default: pushed },
      evictionPolicy: "noeviction",
      warnings: [
        expect.stringMatching(/^No tick has ever run/),
        expect.stringMatching(
          /^Redis is over its maxmemory \(\d+ bytes used of \d+\): enqueues .* fail with REDIS_FULL/,
        ),
      ],
    });

    // A fresh process ticks: begin/step/finish run under maxmemory.
    const ticker = make({ fill: () => void ran++ });
    let succeeded = 0;
    for (let t = 0; t < 20 && succeeded < pushed; t++)
      succeeded += (await ticker.tick({ batch: 100, concurrency: 50 })).succeeded;
    expect(succeeded).toBe(pushed);
    expect(ran).toBe(pushed);
    expect(await ticker.stats()).toMatchObject({ processed: pushed, queues: { default: 0 }, inflight: 0, ticks: 0 });

    // used_memory counts Redis' Lua heap, where the drain left the jobs' text it read (up to some 800 KB
    // here, collected as later scripts run), and the clients' buffers, shrunk by Redis' cron: collect
    // the one now and give the other a few seconds, so what is measured is what tickq keeps.
    await admin.eval("collectgarbage('collect') return 0", 0);
    let after = await memory();
    for (let i = 0; i < 50 && after.used >= after.max; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await memory();
    }
    expect(after.used).toBeLessThan(after.max);
    const jid = await tq.enqueue("fill", [1, "after"]);
    expect(jid).toMatch(/^[0-9a-f]{24}$/);
    expect(await admin.llen("mem:queue:default")).toBe(1);
    expect(warned).toEqual([]);
  });

  for (const policy of ["allkeys-lru", "volatile-lru"]) {
    it(`with ${policy}, stats warns every time, the log warns once per process`, async () => {
      await admin.config("SET", "maxmemory-policy", policy);
      for (let process = 0; process < 2; process++) {
        warned = [];
        const tq = make({ work: () => {} });
        await tq.enqueue("work", []);
        if (process === 1) await tq.stats(); // learn the policy from stats first, then ticks
        for (let i = 0; i < 3; i++) {
          await tq.tick();
          const stats = await tq.stats();
          expect(stats.evictionPolicy).toBe(policy);
          expect(stats.warnings.length).toBeGreaterThan(0);
          expect(stats.warnings.join(" ")).toMatch(/noeviction/);
          expect(stats.warnings.join(" ")).toContain(policy);
        }
        expect(warned).toHaveLength(1);
        expect(warned[0]).toMatch(new RegExp(`maxmemory-policy ${policy}.*noeviction`));
      }
    });
  }

  it("with noeviction, no warning anywhere", async () => {
    const tq = make({ work: () => {} });
    await tq.enqueue("work", []);
    for (let i = 0; i < 2; i++) {
      await tq.tick();
      expect(await tq.stats()).toMatchObject({ evictionPolicy: "noeviction", warnings: [] });
    }
    expect(warned).toEqual([]);
  });
});
