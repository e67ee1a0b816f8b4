// Every TypeScript snippet of the README and of the docs pages (docs/**/*.md)
// compiles under `strict`, against ioredis 6 and ioredis 5 (devDependency
// ioredis5), as a user who copies it would compile it. "tickq" imports
// resolve to the sources (always current, no build needed; their own code
// needs lib ES2024, where a user of the built .d.ts needs none); "ioredis" to
// the version under test, for the sources too.
// Fragments may use three placeholders, declared below: redis, jobs, env.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { tickqSources } from "../../../scripts/tickq-source.mjs";

const root = resolve(".");

interface Snippet {
  file: string;
  line: number;
  code: string;
}

/** README.md, then every page under docs/ (not the site's own config folder, nor the generated reference), in a stable order. */
function markdownFiles(): string[] {
  const pages = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter(
      (path) =>
        path.endsWith(".md") &&
        !path.split(/[\\/]/).some((part) => part.startsWith(".")) &&
        path.split(/[\\/]/)[0] !== "reference",
    )
    .map((path) => join("docs", path))
    .sort();
  return ["README.md", ...pages];
}

function snippetsOf(file: string): Snippet[] {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const found: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```ts") continue;
    const start = i + 1;
    while (lines[++i] !== "```") if (i >= lines.length) throw new Error(`unclosed snippet at ${file}:${start}`);
    found.push({ file, line: start, code: lines.slice(start, i).join("\n") });
  }
  return found;
}

const PLACEHOLDERS = `import type { RedisAdapter } from "tickq";
declare global {
  const redis: RedisAdapter;
  const jobs: { sendReport: (args: [string]) => void; ping: () => void; sync: () => void; sendEmail: (args: [string]) => void };
  const env: { UPSTASH_REDIS_REST_URL: string; UPSTASH_REDIS_REST_TOKEN: string };
  // The runtimes' globals the deploy pages use (docs/deploy/bun.md, deno.md), as far as they use them.
  const Bun: { env: Record<string, string | undefined> };
  const Deno: { env: { get(name: string): string | undefined } };
  // A tickq, as a page's earlier snippet made it (docs/guides/workflows.md, docs/deploy/nextjs.md).
  const tq: import("tickq").Tickq<import("tickq").JobRegistry>;
  const tickq: import("tickq/next").TickqNext<import("tickq").JobRegistry>;
}

`;

/** Every export of the package → its source (scripts/tickq-source.mjs reads package.json's exports). */
const ENTRIES: Record<string, string> = tickqSources();

// docs/deploy/nextjs.md: the one function of Next's it passes tickq (next is the example's dependency, not
// tickq's: test:scheduled builds the example with the real one). An ambient module: a file with no import.
const NEXT_SERVER = `declare module "next/server" {
  export function after(task: Promise<unknown> | (() => unknown)): void;
}
`;

describe("the TypeScript snippets of the README and the docs", () => {
  const dir = mkdtempSync(join(tmpdir(), "tickq-readme-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const found = markdownFiles().flatMap(snippetsOf);

  it("has snippets to check: the README's quick start first, and the docs pages' own", () => {
    expect(found[0]!.file).toBe("README.md");
    expect(found[0]!.code).toMatch(/from "ioredis"/);
    expect(new Set(found.map((s) => s.file)).size).toBeGreaterThanOrEqual(10);
    expect(found.length).toBeGreaterThanOrEqual(15);
  });

  it.each([
    ["ioredis", "6"],
    ["ioredis5", "5"],
  ])(
    "compile under strict with %s (ioredis %s)",
    async (pkg, major) => {
      const ioredis = join(root, "node_modules", pkg);
      expect(JSON.parse(readFileSync(join(ioredis, "package.json"), "utf8")).version).toMatch(
        new RegExp(`^${major}\\.`),
      );
      const project = join(dir, pkg);
      mkdirSync(join(project, "node_modules"), { recursive: true });
      symlinkSync(join(root, "node_modules/@types"), join(project, "node_modules/@types"));
      symlinkSync(join(root, "node_modules/@upstash"), join(project, "node_modules/@upstash"));
      // valibot: the docs show a job's schema with it (tickq depends on it already).
      symlinkSync(join(root, "node_modules/valibot"), join(project, "node_modules/valibot"));
      symlinkSync(ioredis, join(project, "node_modules/ioredis"));
      // docs/running-redis.md: node-redis (`redis`) and the @redis/* packages it re-exports
      for (const linked of ["redis", "@redis"]) {
        symlinkSync(join(root, "node_modules", linked), join(project, "node_modules", linked));
      }
      // docs/operate/telemetry.md: the OpenTelemetry API and SDK, and pino with the packages its types import
      // docs/deploy/netlify.md: the Config type of @netlify/functions (and @netlify/types, which it re-exports)
      for (const linked of [
        "@opentelemetry",
        "pino",
        "pino-std-serializers",
        "sonic-boom",
        "thread-stream",
        "@netlify",
        // docs/deploy/express.md and fastify.md: the frameworks (devDependencies), their types under @types
        "express",
        "fastify",
        // docs/guides/testing.md: its examples are Vitest tests
        "vitest",
      ]) {
        symlinkSync(join(root, "node_modules", linked), join(project, "node_modules", linked));
      }
      writeFileSync(join(project, "package.json"), JSON.stringify({ type: "module" }));
      writeFileSync(join(project, "placeholders.d.ts"), PLACEHOLDERS);
      writeFileSync(join(project, "next-server.d.ts"), NEXT_SERVER);
      const names = found.map(({ code }, n) => {
        const name = `snippet-${n}.ts`;
        writeFileSync(
          join(project, name),
          code.includes("import ") || code.includes("export ") ? code : `${code}\nexport {};\n`,
        );
        return name;
      });
      const paths: Record<string, string[]> = { ioredis: [join(ioredis, "built/index.d.ts")] };
      for (const [spec, file] of Object.entries(ENTRIES)) paths[spec] = [file];
      writeFileSync(
        join(project, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: "NodeNext",
            moduleResolution: "NodeNext",
            target: "ES2022",
            lib: ["ES2024", "DOM"],
            types: ["node"],
            noEmit: true,
            skipLibCheck: true,
            paths,
          },
          files: ["placeholders.d.ts", "next-server.d.ts", ...names],
        }),
      );
      try {
        // asynchronous, so the test worker keeps answering vitest while tsc runs
        await promisify(execFile)(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", project], {
          encoding: "utf8",
        });
      } catch (error) {
        // name the Markdown file and line of each error, not the temporary file
        const out = String((error as { stdout?: string }).stdout ?? error).replace(
          /snippet-(\d+)\.ts\((\d+),/g,
          (_, n, row) => {
            const { file, line } = found[Number(n)]!;
            return `${file} line ${line + Number(row) - 1} (`;
          },
        );
        expect.fail(`snippets do not compile with ${pkg}:\n${out}`);
      }
    },
    240_000,
  );
});
