// The edge entries as a new user gets them: `npm pack`, then a fresh folder
// that installs the tarball alone: tickq/cloudflare, tickq/vercel,
// tickq/lambda, tickq/netlify and tickq/next speak Upstash's REST API through
// restAdapter, so no Redis client (optional peers) is needed, and
// tickq/adapters/node-redis imports none at run time either; nor does the CLI
// over REST. They must import in Node, bundle with wrangler (which fails with
// "Could not resolve" when an import is missing) and type-check a Worker
// with its own routes under strict. Every other entry imports there too, but
// tickq/node (ioredis), and every one has its declarations under
// moduleResolution Bundler and Node16.
//
// The package is built and packed from a copy of the sources, so the other
// test files, which read this folder's dist/, never see it half-written. The
// tarball holds only what users import, with the license and changelog:
// compiled tests or benchmarks left in dist/ by another build stay out.
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";

const root = resolve(".");
const work = mkdtempSync(join(tmpdir(), "tickq-pack-"));
// Asynchronous, so the test worker keeps answering vitest while a step runs for a minute.
const run = async (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  (
    await promisify(execFile)(cmd, args, {
      cwd,
      encoding: "utf8",
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    })
  ).stdout;

describe("the packed package in a fresh project", () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("installs alone, with no Redis client; every entry imports and type-checks, the edge entries bundle with wrangler", async () => {
    const copy = join(work, "tickq");
    mkdirSync(copy);
    for (const entry of [
      "src",
      "tools",
      "scripts",
      "package.json",
      "tsconfig.json",
      "tsconfig.build.json",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
    ]) {
      cpSync(join(root, entry), join(copy, entry), { recursive: true });
    }
    symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
    await run(process.execPath, ["scripts/build.mjs"], copy);
    await run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], copy);
    for (const stray of ["dist/test", "dist/bench"]) {
      mkdirSync(join(copy, stray), { recursive: true });
      writeFileSync(join(copy, stray, "stray.test.js"), "export {};\n");
    }
    await run("npm", ["pack", "--ignore-scripts", "--pack-destination", work], copy);
    const tarball = join(work, readdirSync(work).find((f) => f.endsWith(".tgz"))!);
    const packed = (await run("tar", ["-tzf", tarball], work))
      .split("\n")
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ""));
    const manifest = JSON.parse(readFileSync(join(copy, "package.json"), "utf8")) as {
      exports: Record<string, Record<string, string>>;
      bin: Record<string, string>;
    };
    const named = [
      ...Object.values(manifest.exports).flatMap((entry) => Object.values(entry)),
      ...Object.values(manifest.bin),
    ].map((f) => f.replace(/^\.\//, ""));
    expect(packed).toEqual(expect.arrayContaining(["package.json", "README.md", "LICENSE", "CHANGELOG.md", ...named]));
    expect(packed.filter((f) => /^(dist\/)?(test|bench)\//.test(f))).toEqual([]);

    const app = join(work, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", tarball], app);
    for (const client of ["@upstash/redis", "ioredis", "redis"])
      expect(existsSync(join(app, "node_modules", client)), `no Redis client installed (${client})`).toBe(false);

    writeFileSync(
      join(app, "main.mjs"),
      `import { tickqWorker } from "tickq/cloudflare";
       import { tickqVercel } from "tickq/vercel";
       import { nodeRedisAdapter } from "tickq/adapters/node-redis";
       import { tickqLambda } from "tickq/lambda";
       import { tickqNetlify } from "tickq/netlify";
       import { tickqNext } from "tickq/next";
       console.log(typeof tickqWorker({ jobs: {} }).fetch, typeof tickqVercel({ jobs: {} }).GET, typeof nodeRedisAdapter,
         typeof tickqLambda({ jobs: {} }), typeof tickqNetlify({ jobs: {} }).fetch, typeof tickqNext);`,
    );
    // the Redis clients' adapters import no client at run time: a node-redis user installs redis alone
    expect((await run(process.execPath, ["main.mjs"], app)).trim()).toBe(
      "function function function function function function",
    );

    // Every entry package.json exports, as a new user imports it: as ESM with no Redis client installed, but
    // tickq/node, whose server connects through ioredis, and whose failure names it (docs/deploy/node.md).
    const entries = Object.keys(manifest.exports).map((key) => (key === "." ? "tickq" : `tickq/${key.slice(2)}`));
    expect(entries.length).toBeGreaterThanOrEqual(19);
    writeFileSync(
      join(app, "every-entry.mjs"),
      `for (const spec of ${JSON.stringify(entries)}) {
         try { console.log(spec, Object.keys(await import(spec)).length > 0 ? "exports" : "exports nothing"); }
         catch (error) { console.log(spec, /'ioredis'/.test(error.message) ? "needs ioredis" : error.message); }
       }`,
    );
    expect((await run(process.execPath, ["every-entry.mjs"], app)).trim().split("\n")).toEqual(
      entries.map((spec) => `${spec} ${spec === "tickq/node" ? "needs ioredis" : "exports"}`),
    );
    // ...and typed (strict refuses an import without declarations) under both resolutions a project uses.
    writeFileSync(
      join(app, "every-entry.ts"),
      `${entries.map((spec, i) => `import * as entry${i} from "${spec}";`).join("\n")}
       export const all = [${entries.map((_, i) => `entry${i}`).join(", ")}];`,
    );
    for (const [module, moduleResolution] of [
      ["ESNext", "Bundler"],
      ["Node16", "Node16"],
    ]) {
      // skipLibCheck on: tickq/fastify and tickq/adapters/upstash name their framework's and client's types,
      // which this project (rightly) does not install
      writeFileSync(
        join(app, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: [],
            target: "ES2022",
            lib: ["ES2022", "DOM"],
            module,
            moduleResolution,
          },
          files: ["every-entry.ts"],
        }),
      );
      await run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", app], app);
    }

    // The CLI over Upstash's REST API needs no Redis client either; the commands that speak TCP name theirs.
    const cli = join(app, "node_modules", ".bin", "tickq");
    const rest = {
      UPSTASH_REDIS_REST_URL: inject("restUrl"),
      UPSTASH_REDIS_REST_TOKEN: inject("restToken"),
      TICKQ_PREFIX: `tickq-pack-${process.pid}:`, // read only: nothing is written under it
    };
    expect(JSON.parse(await run(cli, ["stats", "--json"], app, rest))).toMatchObject({ processed: 0 });
    await expect(run(cli, ["redis-http"], app)).rejects.toThrow(/needs the ioredis package: npm install ioredis/);

    writeFileSync(
      join(app, "worker.ts"),
      `import { tickqWorker } from "tickq/cloudflare";
       import { tickqVercel } from "tickq/vercel";
       const jobs = { sendEmail: async ([to]: [string]) => { console.log(to); } };
       export default tickqWorker({
         jobs,
         kick: true,
         maxRetries: 5,
         routes: (app) => app.post("/signup", async (c) => c.json({ jid: await c.var.tq.enqueue("sendEmail", ["a@b.c"]) })),
       });
       // @ts-expect-error args are checked against the handler
       export const bad = (t: ReturnType<typeof tickqVercel<typeof jobs>>) => t.tickq().enqueue("sendEmail", [1]);
       export const { GET, POST } = tickqVercel({ jobs });`,
    );
    writeFileSync(join(app, "wrangler.toml"), 'name = "app"\nmain = "worker.ts"\ncompatibility_date = "2025-09-01"\n');
    mkdirSync(join(app, ".wrangler-home"));
    const bundled = await run(
      process.execPath,
      [join(root, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", "out"],
      app,
      {
        XDG_CONFIG_HOME: join(app, ".wrangler-home"),
        TMPDIR: join(app, ".wrangler-home"),
        WRANGLER_SEND_METRICS: "false",
      },
    );
    expect(bundled).toMatch(/dry-run: exiting now/);

    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          lib: ["ES2022", "DOM"],
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ["worker.ts"],
      }),
    );
    await run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", app], app);
  }, 300_000);
});
