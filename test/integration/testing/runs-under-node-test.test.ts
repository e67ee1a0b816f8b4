// tickq/testing needs no test runner's globals: a node:test file (no Vitest in the process) creates a
// test tickq, advances its clock a day and sees the delayed job run, as a user of node:test would.
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, inject, it } from "vitest";

const root = resolve(".");
const dir = join(root, "tmp", `node-test-runner-${process.pid}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("runs a test tickq under node:test", async () => {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "delayed.test.ts");
  writeFileSync(
    file,
    `import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Redis } from "ioredis";
import { ioredisAdapter } from ${JSON.stringify(join(root, "src/redis/ioredis.ts"))};
import { createTestTickq } from ${JSON.stringify(join(root, "src/testing/index.ts"))};

const client = new Redis(${JSON.stringify(inject("redisUrl"))});
after(() => client.disconnect());

test("a job delayed a day runs once the clock moved a day", async () => {
  const ran: string[] = [];
  const { tq, clock, runUntilIdle, close } = await createTestTickq({
    redis: ioredisAdapter(client),
    jobs: { report: async ([day]: [string]) => void ran.push(day) },
  });
  await tq.enqueue("report", ["monday"], { delayMs: 86_400_000 });
  await runUntilIdle();
  assert.deepEqual(ran, []);
  await clock.advance("1d");
  await runUntilIdle();
  assert.deepEqual(ran, ["monday"]);
  await close();
});
`,
  );
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--test", file], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
  });
  expect(stdout).toMatch(/# pass 1/);
  expect(stdout).toMatch(/# fail 0/);
}, 60_000);
