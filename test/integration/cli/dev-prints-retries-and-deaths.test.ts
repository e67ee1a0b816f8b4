// `tickq dev` says what became of a failed run: a line when the job is retried (the next attempt and
// when), and one when it goes dead (with its error), not only the run's own ✗ line; text from the
// job reaches the terminal escaped.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, inject, it } from "vitest";
import { lines } from "../../../src/cli/dev/lines.js";
import { type DevServer, startDevServer } from "../../../src/cli/dev/server.js";
import { freePort } from "../../../src/platforms/node/find-redis.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

const SECRET = "dev-outcomes-secret-0123456789";

const app = `// written by test/integration/cli/dev-prints-retries-and-deaths.test.ts
export const jobs = {
  once: { retry: false, perform: () => { throw new Error("no retry\\u001b[2J"); } },
  twice: { retry: 1, backoffMs: () => 0, perform: () => { throw new Error("flaky"); } },
};
`;

let server: DevServer | undefined;
let dir = "";
const redis = directRedis();
const prefix = uniquePrefix("dev-outcomes");

afterEach(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
  await deleteUnder(redis, prefix);
  redis.disconnect();
});

it("prints a line when a failed job is retried and when it goes dead, with its error escaped", async () => {
  dir = mkdtempSync(join(tmpdir(), "tickq-dev-outcomes-"));
  writeFileSync(join(dir, "app.mjs"), app);
  const printed: string[] = [];
  let seen = () => {};
  // What a terminal would get (no colours: not a TTY).
  const terminal = {
    isTTY: false,
    write: (text: string) => {
      printed.push(...text.split("\n").filter(Boolean));
      seen();
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  server = await startDevServer({
    module: join(dir, "app.mjs"),
    redisUrl: inject("redisUrl"),
    prefix,
    port: await freePort(),
    secret: SECRET,
    link: undefined,
    out: lines(terminal, {}),
  });
  const enqueue = (name: string) =>
    fetch(`${server!.url}/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      body: JSON.stringify({ name, args: [] }),
    }).then(async (r) => ((await r.json()) as { jid: string }).jid);
  const once = await enqueue("once");
  const twice = await enqueue("twice");
  const deadLines = () => printed.filter((line) => line.startsWith("☠")).length;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no two ☠ lines in:\n${printed.join("\n")}`)), 10_000);
    seen = () => deadLines() === 2 && (clearTimeout(timer), resolve());
    seen();
  });

  expect(printed).toContain(`☠ job once dead ${once} after attempt 1: Error: no retry\\x1b[2J`);
  expect(printed).toContainEqual(
    expect.stringMatching(new RegExp(`^↻ job twice ${twice} retried: attempt 2 in \\d+ ms$`)),
  );
  expect(printed).toContain(`☠ job twice dead ${twice} after attempt 2: Error: flaky`);
  expect(printed.filter((line) => line.includes(once))).toHaveLength(2); // its run's ✗ line and its death: no retry
  expect(printed.join("\n")).not.toContain("\u001b");
});
