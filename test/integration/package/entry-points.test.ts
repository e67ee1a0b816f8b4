// Another project can depend on this folder and import both entry points,
// types included: checked against the build that `npm install` makes.
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

describe("the package", () => {
  it("exposes tickq, its adapters and its runtime factories as ESM with types", () => {
    const root = resolve(".");
    expect(existsSync(join(root, "dist/index.js")), "run npm run build (npm install does it)").toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "tickq-consumer-"));
    try {
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(root, join(dir, "node_modules/tickq"));
      for (const dep of ["ioredis", "redis", "@redis", "@upstash", "hono", "valibot", "croner"])
        symlinkSync(join(root, "node_modules", dep), join(dir, "node_modules", dep));
      writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
      writeFileSync(
        join(dir, "main.mjs"),
        `import { createTickq } from "tickq";
         import * as entry from "tickq";
         import { ioredisAdapter } from "tickq/adapters/ioredis";
         import { upstashAdapter } from "tickq/adapters/upstash";
         import { restAdapter } from "tickq/adapters/rest";
         import { nodeRedisAdapter } from "tickq/adapters/node-redis";
         import { createApp } from "tickq/app";
         import { tickqWorker } from "tickq/cloudflare";
         import { tickqVercel } from "tickq/vercel";
         import { startServer, startUpstashLocal, findRedis } from "tickq/node";
         import { dashboard } from "tickq/dashboard";
         import { cron } from "tickq/cron";
         const tq = createTickq({ redis: ioredisAdapter({ evalsha() {}, eval() {} }), jobs: { a: () => {} } });
         const worker = tickqWorker({ jobs: {} });
         console.log(typeof tq.tick, typeof tq.enqueue, !("scripts" in entry),
           typeof upstashAdapter, typeof restAdapter, typeof createApp, typeof worker.scheduled, typeof tickqVercel({ jobs: {} }).GET,
           typeof startServer, typeof startUpstashLocal, typeof findRedis, typeof tq.jobs.find, typeof tq.stats.history,
           typeof createApp({ tickq: tq, secrets: ["s-secret-for-tests"], dashboard: dashboard() }).fetch, typeof tq.ticks, typeof cron("0 3 * * *", undefined).after,
           typeof nodeRedisAdapter({ evalSha() {}, eval() {} }).evalsha);`,
      );
      const out = execFileSync(process.execPath, ["main.mjs"], { cwd: dir, encoding: "utf8" });
      expect(out.trim()).toBe(
        "function function true function function function function function function function function function function function function function function",
      );
      // the bin, as npx runs it
      const version = execFileSync(join(dir, "node_modules/tickq/dist/cli.js"), ["--version"], {
        cwd: dir,
        encoding: "utf8",
      });
      expect(version.trim()).toMatch(/^\d+\.\d+\.\d+$/);

      writeFileSync(
        join(dir, "check.ts"),
        `import { createTickq, type TickReport } from "tickq";
         import { ioredisAdapter } from "tickq/adapters/ioredis";
         import { createApp } from "tickq/app";
         import { tickqWorker } from "tickq/cloudflare";
         import { cron, type CronParser } from "tickq/cron";
         import { dashboard, type DashboardOptions } from "tickq/dashboard";
         import { nodeRedisAdapter } from "tickq/adapters/node-redis";
         import { Redis } from "ioredis";
         import { createClient, createCluster } from "redis";
         const tq = createTickq({ redis: ioredisAdapter(new Redis()), jobs: { mail: async (args: [string]) => {} } });
         createTickq({ redis: nodeRedisAdapter(createClient(), { retries: 1 }), jobs: {} });
         createTickq({ redis: nodeRedisAdapter(createCluster({ rootNodes: [{ url: "redis://127.0.0.1:7000" }] })), prefix: "{tq}:", jobs: {} });
         // @ts-expect-error an ioredis client is not a node-redis client
         nodeRedisAdapter(new Redis());
         void tq.enqueue("mail", ["a@b.c"]);
         // @ts-expect-error wrong args type
         void tq.enqueue("mail", [1]);
         const r: Promise<TickReport> = tq.tick();
         const app = createApp({ tickq: tq, secrets: ["s-secret-for-tests"] });
         const options: DashboardOptions = { refreshMs: 3_000 };
         const withDashboard = createApp({ tickq: tq, secrets: ["s-secret-for-tests"], dashboard: dashboard(options) });
         // @ts-expect-error a dashboard is what dashboard() returns, not its options
         createApp({ tickq: tq, secrets: ["s-secret-for-tests"], dashboard: options });
         void withDashboard;
         const worker = tickqWorker({ jobs: { mail: async (args: [string]) => {} } });
         const parser: CronParser = cron;
         tickqWorker({ jobs: { mail: async (args: [string]) => {} }, cron: parser, schedules: { daily: { cron: "0 3 * * *", job: "mail", args: ["a@b.c"] } } });
         void app.request("/health"); void worker.fetch;
         const page: Promise<{ jobs: { jid: string; state: "queued" | "scheduled" | "retry" | "dead" | "running" | "succeeded" | "cancelled" | "expired" }[]; cursor: string | null }> = tq.jobs.list("dead");
         const off: () => void = tq.on("failed", (e) => void e.retryAt?.getTime());
         void page; off();`,
      );
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: "NodeNext",
            moduleResolution: "NodeNext",
            target: "ES2022",
            noEmit: true,
            skipLibCheck: true,
            types: [],
          },
          files: ["check.ts"],
        }),
      );
      execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], { encoding: "utf8" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000); // node, the CLI and tsc as child processes: past 30 s on a loaded machine

  it("tickq/cloudflare and tickq/vercel import no croner, in any chunk they load; tickq and tickq/cron do", () => {
    // esbuild's code splitting shares a module two entries reach: a value import of index.ts from the app would put croner here.
    const packagesOf = (entry: string) => {
      const seen = new Set<string>();
      const packages = new Set<string>();
      const visit = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        for (const [, spec] of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*"([^"]+)"/g)) {
          if (spec!.startsWith(".")) visit(resolve(dirname(file), spec!));
          else packages.add(spec!);
        }
      };
      visit(resolve(entry));
      return [...packages];
    };
    for (const entry of ["dist/cloudflare.js", "dist/vercel.js"]) {
      expect(packagesOf(entry), entry).toContain("hono/tiny"); // the walk reaches the app's chunks
      expect(packagesOf(entry), entry).not.toContain("croner");
    }
    for (const entry of ["dist/index.js", "dist/cron.js"]) expect(packagesOf(entry), entry).toContain("croner");
  });
});
