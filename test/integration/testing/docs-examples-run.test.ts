// The examples of docs/guides/testing.md run as tests here, as a user who copies them would run
// them: each ```ts block that imports vitest is written out with "tickq…" pointing at the sources
// and Redis at the suite's, and imported, so its tests join this file's. A page whose example
// stopped passing fails here, not in a user's project.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, inject } from "vitest";
import { tickqSources } from "../../../scripts/tickq-source.mjs";

const root = resolve(".");
const PAGE = "docs/guides/testing.md";
const dir = join(root, "tmp", `docs-testing-examples-${process.pid}`);
const sources: Record<string, string> = tickqSources();

function examplesOf(page: string): { line: number; code: string }[] {
  const lines = readFileSync(join(root, page), "utf8").split("\n");
  const found: { line: number; code: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```ts") continue;
    const start = i + 1;
    while (lines[++i] !== "```");
    const code = lines.slice(start, i).join("\n");
    if (code.includes('from "vitest"')) found.push({ line: start, code });
  }
  return found;
}

function runnable(code: string): string {
  return code
    .replace(/from "(tickq(?:\/[\w/-]+)?)"/g, (_, spec: string) => {
      const source = sources[spec];
      if (!source) throw new Error(`${PAGE} imports ${spec}, which the package does not export`);
      return `from ${JSON.stringify(source)}`;
    })
    .replaceAll('process.env.REDIS_URL ?? "redis://127.0.0.1:6379"', JSON.stringify(inject("redisUrl")));
}

mkdirSync(dir, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const examples = examplesOf(PAGE);
if (examples.length < 5) throw new Error(`${PAGE} should hold at least 5 runnable examples, found ${examples.length}`);
for (const { line, code } of examples) {
  const file = join(dir, `testing-md-line-${line}.ts`);
  writeFileSync(file, runnable(code));
  await import(file);
}
