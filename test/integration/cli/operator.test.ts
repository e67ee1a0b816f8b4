// What a new operator runs into first: a typo in a queue name, a Redis
// that is down, the version of a CLI run from source.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(cliConnections, "tickq queues over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cli-ops");
  let cli: Cli;
  const env = () => cliEnv(adapterCase);
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  const run = (...args: string[]) => cli.run([...args, "--prefix", h.prefix], env());

  it("pause of a queue that does not exist exits 3, names the queues there are, and pauses nothing", async () => {
    await h.make({ hello: () => {} }).enqueue("hello", [], { queue: "mail" });
    const typo = await run("queues", "pause", "mial");
    expect(typo.code).toBe(3);
    expect(typo.stderr).toBe(
      'tickq: no queue named "mial" (queues: mail); to pause it before its first job, add --new\n',
    );
    expect(await h.redis.smembers(`${h.prefix}paused`)).toEqual([]);
    expect((await run("queues", "resume", "mial")).code).toBe(3);
  });

  it("pause --new pauses a queue before its first job", async () => {
    expect(await run("queues", "pause", "later", "--new")).toMatchObject({ code: 0, stdout: "queue later paused\n" });
    const [queue] = await h.make({}).queues.list();
    expect(queue).toMatchObject({ name: "later", paused: true });
  });
});

describe("the tickq CLI run from source", () => {
  it("--version prints the package's version", async () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "src/cli/main.ts", "--version"],
      { timeout: 30_000 },
    );
    expect(stdout).toBe(`${version}\n`);
  });
});
