// tickq/testing needs no test runner's globals: a Jest file, with Jest's globals switched off
// (`injectGlobals: false`, its API imported from @jest/globals), creates a test tickq, advances
// its clock a day and sees the delayed job run, as a user of Jest would. Jest runs in ESM mode
// (tickq is an ES module): its TypeScript is stripped by esbuild through a five-line transformer,
// where a user's project would use ts-jest or babel.
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, inject, it } from "vitest";

const root = resolve(".");
const dir = join(root, "tmp", `jest-runner-${process.pid}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TRANSFORM = `const { transformSync } = require("esbuild");
module.exports = {
  process: (source, sourcefile) =>
    transformSync(source, { loader: "ts", format: "esm", target: "node20", sourcemap: "inline", sourcefile }),
};
`;

it("runs a test tickq under Jest, without Jest's globals", async () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "esbuild-transform.cjs"), TRANSFORM);
  writeFileSync(
    join(dir, "jest.config.json"),
    JSON.stringify({
      rootDir: dir,
      testMatch: ["<rootDir>/*.test.ts"],
      injectGlobals: false,
      extensionsToTreatAsEsm: [".ts"],
      transform: { "\\.ts$": "./esbuild-transform.cjs" }, // as docs/guides/testing.md shows it
      // tickq's sources import each other as ./x.js, which is ./x.ts on disk.
      moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
      moduleFileExtensions: ["ts", "js", "mjs", "cjs", "json"],
      cacheDirectory: join(dir, "cache"),
    }),
  );
  writeFileSync(
    join(dir, "delayed.test.ts"),
    `import { afterAll, expect, test } from "@jest/globals";
import { Redis } from "ioredis";
import { ioredisAdapter } from ${JSON.stringify(join(root, "src/redis/ioredis.ts"))};
import { createTestTickq } from ${JSON.stringify(join(root, "src/testing/index.ts"))};

const client = new Redis(${JSON.stringify(inject("redisUrl"))});
afterAll(() => client.disconnect());

test("a job delayed a day runs once the clock moved a day", async () => {
  expect((globalThis as { expect?: unknown }).expect).toBeUndefined(); // no globals in this file
  const ran: string[] = [];
  const { tq, clock, runUntilIdle, close } = await createTestTickq({
    redis: ioredisAdapter(client),
    jobs: { report: async ([day]: [string]) => void ran.push(day) },
  });
  await tq.enqueue("report", ["monday"], { delayMs: 86_400_000 });
  await runUntilIdle();
  expect(ran).toEqual([]);
  await clock.advance("1d");
  expect((await runUntilIdle()).jobs.report).toEqual({ succeeded: 1, failed: 0, dead: 0 });
  expect(ran).toEqual(["monday"]);
  await close();
});
`,
  );
  const { stderr } = await promisify(execFile)(
    process.execPath,
    [join(root, "node_modules/jest/bin/jest.js"), "--config", join(dir, "jest.config.json"), "--ci"],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        // Jest's ESM mode runs on Node's vm modules, still behind this flag.
        NODE_OPTIONS: "--experimental-vm-modules --no-warnings=ExperimentalWarning",
      },
    },
  );
  // Jest reports on stderr; execFile rejected had any test failed (exit code 1).
  expect(stderr).toMatch(/Tests:\s+1 passed, 1 total/);
}, 60_000);
