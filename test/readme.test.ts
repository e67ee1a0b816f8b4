// Every TypeScript snippet of the README compiles under `strict`, against
// ioredis 6 and ioredis 5 (devDependency ioredis5), as a user who copies it
// would compile it. "tickq" imports resolve to the sources (always current,
// no build needed; their own code needs lib ES2024, where a user of the
// built .d.ts needs none); "ioredis" to the version under test, for the
// sources too.
// Fragments may use three placeholders, declared below: redis, jobs, env.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(".");

function snippets(): { line: number; code: string }[] {
  const lines = readFileSync(join(root, "README.md"), "utf8").split("\n");
  const found: { line: number; code: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```ts") continue;
    const start = i + 1;
    while (lines[++i] !== "```") if (i >= lines.length) throw new Error(`unclosed snippet at README.md:${start}`);
    found.push({ line: start, code: lines.slice(start, i).join("\n") });
  }
  return found;
}

const PLACEHOLDERS = `import type { RedisAdapter } from "tickq";
declare global {
  const redis: RedisAdapter;
  const jobs: { sendReport: (args: [string]) => void; ping: () => void; sync: () => void; sendEmail: (args: [string]) => void };
  const env: { UPSTASH_REDIS_REST_URL: string; UPSTASH_REDIS_REST_TOKEN: string };
}
`;

const ENTRIES: Record<string, string> = {
  tickq: "src/index.ts",
  "tickq/cron": "src/schedules/cron.ts",
  "tickq/adapters/ioredis": "adapters/ioredis.ts",
  "tickq/adapters/upstash": "adapters/upstash.ts",
  "tickq/adapters/rest": "adapters/rest.ts",
  "tickq/app": "functions/app.ts",
  "tickq/cloudflare": "functions/cloudflare/worker.ts",
  "tickq/vercel": "functions/vercel/handler.ts",
  "tickq/dashboard": "functions/dashboard/index.ts",
};

describe("the README's TypeScript snippets", () => {
  const dir = mkdtempSync(join(tmpdir(), "tickq-readme-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const found = snippets();

  it("has snippets to check, the quick start first", () => {
    expect(found.length).toBeGreaterThanOrEqual(5);
    expect(found[0]!.code).toMatch(/from "ioredis"/);
  });

  it.each([["ioredis", "6"], ["ioredis5", "5"]])("compile under strict with %s (ioredis %s)", (pkg, major) => {
    const ioredis = join(root, "node_modules", pkg);
    expect(JSON.parse(readFileSync(join(ioredis, "package.json"), "utf8")).version).toMatch(new RegExp(`^${major}\\.`));
    const project = join(dir, pkg);
    mkdirSync(join(project, "node_modules"), { recursive: true });
    symlinkSync(join(root, "node_modules/@types"), join(project, "node_modules/@types"));
    symlinkSync(join(root, "node_modules/@upstash"), join(project, "node_modules/@upstash"));
    symlinkSync(ioredis, join(project, "node_modules/ioredis"));
    writeFileSync(join(project, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(join(project, "placeholders.d.ts"), PLACEHOLDERS);
    const files = found.map(({ line, code }) => {
      const name = `readme-line-${line}.ts`;
      writeFileSync(join(project, name), code.includes("import ") || code.includes("export ") ? code : `${code}\nexport {};\n`);
      return name;
    });
    const paths: Record<string, string[]> = { ioredis: [join(ioredis, "built/index.d.ts")] };
    for (const [spec, file] of Object.entries(ENTRIES)) paths[spec] = [join(root, file)];
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", lib: ["ES2024", "DOM"],
          types: ["node"], noEmit: true, skipLibCheck: true, paths,
        },
        files: ["placeholders.d.ts", ...files],
      }),
    );
    try {
      execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", project], { encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      // name the README line of each error, not the temporary file
      const out = String((error as { stdout?: string }).stdout ?? error).replace(/readme-line-(\d+)\.ts\((\d+),/g, (_, at, row) => `README.md line ${Number(at) + Number(row) - 1} (`);
      expect.fail(`README snippets do not compile with ${pkg}:\n${out}`);
    }
  }, 120_000);
});
