// `tickq` run as a child process against the real Redis, over both of its
// connections (REDIS_URL: ioredis; UPSTASH_REDIS_REST_URL and _TOKEN:
// restAdapter): its output, human and --json, and its exit codes.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../../../src/platforms/node/find-redis.js";
import type { JobInfo, JobPage, Stats } from "../../../src/index.js";
import { describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

const JOBS = "test/fixtures/cli-jobs.mjs";

// Each case spawns 5 to 15 CLI processes, a fresh Node each: 1 to 2 s apiece on a loaded machine (CI beside
// other work took one case past 30 s). The bound is the spawns', not the behaviour's. Given to the describe:
// vi.setConfig reaches only the first file a forked worker runs (the pool does not isolate files).
const SPAWNS_MS = 120_000;

describeOverAdapters(
  cliConnections,
  "the tickq CLI over $name",
  (adapterCase) => {
    const h = useHarness(adapterCase, "cli");
    let cli: Cli;
    const env = () => cliEnv(adapterCase);
    beforeAll(async () => {
      cli = await buildCli({});
    });
    afterAll(() => cli.dispose());
    const run = (...args: string[]) =>
      cli.run([...args, "--prefix", h.prefix], {
        ...env(),
        TICKQ_TEST_REDIS_URL: inject("redisUrl"),
        TICKQ_TEST_PREFIX: h.prefix,
      });
    const json = <T>(...args: string[]) =>
      cli.json<T>([...args, "--prefix", h.prefix], {
        ...env(),
        TICKQ_TEST_REDIS_URL: inject("redisUrl"),
        TICKQ_TEST_PREFIX: h.prefix,
      });

    it("enqueues, lists, shows, ticks, and prints stats as tables or JSON", async () => {
      const enqueued = await run("enqueue", "hello", '["world"]', "--queue", "mail");
      expect(enqueued).toMatchObject({ code: 0, stderr: "" });
      const jid = enqueued.stdout.trim();
      expect(jid).toMatch(/^[0-9a-f]{24}$/);
      const { body: again } = await json<{ jid: string }>(
        "enqueue",
        "bad",
        "[]",
        "--jid",
        "mine-1",
        "--retry",
        "false",
      );
      expect(again).toEqual({ jid: "mine-1" });

      const list = await run("jobs", "list", "queued", "--queue", "mail");
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(new RegExp(`^JID +NAME +QUEUE +WHERE +ERROR\\n${jid} +hello +mail +next`));
      const show = await run("jobs", "show", jid);
      expect(show.stdout).toMatch(/^jid +[0-9a-f]{24}\nname +hello\nstate +queued\nqueue +mail/);
      expect(show.stdout).toContain('args         ["world"]');
      const { body: found } = await json<JobInfo>("jobs", "show", jid);
      expect(found).toMatchObject({ state: "queued", jid, queue: "mail", job: { args: ["world"] } });

      const tick = await run("tick", "--jobs", JOBS);
      expect(tick.code).toBe(0);
      expect(tick.stdout).toMatch(/^tick [0-9a-f]{16}: 1 succeeded, 1 failed \(0 to retry, 1 dead\)/);
      expect(await h.redis.lrange(`${h.prefix}test:ran`, 0, -1)).toEqual(["world"]);
      expect(tick.stderr).toMatch(/tickq: job bad mine-1 failed \(attempt 1\): Error: always fails; out of retries/);

      const stats = await run("stats");
      expect(stats.stdout).toMatch(/^processed +2\nfailed +1\n/m);
      expect(stats.stdout).toMatch(/QUEUE +WAITING +PAUSED\ndefault +0 *\nmail +0/);
      const { body } = await json<Stats>("stats");
      expect(body).toMatchObject({ processed: 2, failed: 1, dead: 1, lastTickAt: expect.any(Number), warnings: [] });
      const { body: history } = await json<{ date: string; processed: number }[]>("stats", "--history", "2");
      expect(history).toHaveLength(2);
      expect(history[1]).toMatchObject({ processed: 2, failed: 1 });
    });

    it("lists, shows, retries and deletes dead jobs, one or all", async () => {
      // with --jobs, the job's own defaults (retry: false) apply
      await Promise.all([1, 2, 3].map((n) => run("enqueue", "bad", `[${n}]`, "--jid", `d${n}`, "--jobs", JOBS)));
      const ticked = await json<{ dead: number }>("tick", "--jobs", JOBS);
      expect(ticked.body).toMatchObject({ dead: 3 });
      const dead = await run("jobs", "list", "dead", "--limit", "2");
      expect(dead.stdout).toMatch(/^JID +NAME +QUEUE +WHERE +ERROR\nd\d +bad +default +died .+ +Error: always fails\n/);
      expect(dead.stdout).toMatch(/\nmore: tickq jobs list dead --cursor c1\.\S+\n$/);
      const cursor = /--cursor (\S+)/.exec(dead.stdout)![1]!;
      const { body: next } = await json<JobPage>("jobs", "list", "dead", "--limit", "2", "--cursor", cursor);
      expect(next.jobs).toHaveLength(1);
      expect(next.cursor).toBeNull();

      const show = await run("jobs", "show", "d1");
      expect(show.stdout).toMatch(/error +Error: always fails/);
      expect(show.stdout).toMatch(/\nbacktrace:\n {2}\S.*cli-jobs\.mjs:\d+/);

      expect(await run("jobs", "retry", "d1")).toMatchObject({ code: 0, stdout: "d1 (bad) queued on default\n" });
      expect(await run("jobs", "delete", "d2")).toMatchObject({ code: 0, stdout: "d2 (bad) deleted from dead\n" });
      expect(await json("jobs", "retry", "--all", "dead")).toEqual({ code: 0, body: { retried: 1 } });
      expect(await json("jobs", "delete", "--all", "queued", "--queue", "default", "--name", "bad")).toEqual({
        code: 0,
        body: { deleted: 2 },
      });
      expect(await json("jobs", "delete", "--all", "dead")).toEqual({ code: 0, body: { deleted: 0 } });
    });

    it("ticks the workflows the --jobs module exports to completion", async () => {
      const tq = h.make({}, { workflows: { greet: { run: async (input: string) => input } } });
      const id = await tq.workflows.start("greet", "ada");
      const ticked = await run("tick", "--jobs", JOBS);
      expect(ticked.code).toBe(0);
      expect(await tq.workflows.get(id)).toMatchObject({ status: "completed", output: "hi ada" });
    });

    it("pauses, resumes and lists queues", async () => {
      await run("enqueue", "hello", '["x"]', "--queue", "mail");
      expect(await run("queues", "pause", "mail")).toMatchObject({ code: 0, stdout: "queue mail paused\n" });
      const list = await run("queues", "list");
      expect(list.stdout).toMatch(/^QUEUE +WAITING +PAUSED +LAST SERVED\nmail +1 +paused +never\n$/);
      expect((await json<{ fetched: number }>("tick", "--jobs", JOBS)).body.fetched).toBe(0);
      expect(await json("queues", "resume", "mail")).toEqual({ code: 0, body: { queue: "mail", paused: false } });
      expect((await json<{ succeeded: number }>("tick", "--jobs", JOBS, "--queues", "mail")).body.succeeded).toBe(1);
    });

    it("exits 5 from health while jobs wait and no tick runs, 0 once one did", async () => {
      await run("enqueue", "hello", '["x"]');
      const waiting = await run("health");
      expect(waiting.code).toBe(5);
      expect(waiting.stdout).toMatch(
        /^warnings\nlast tick: never\n\nwarning: No tick has ever run while 1 job\(s\) wait/,
      );
      await run("tick", "--jobs", JOBS);
      expect(await json("health")).toEqual({
        code: 0,
        body: { ok: true, lastTickAt: expect.any(Number), warnings: [] },
      });
    });

    it("exits 5 from health while a job waits that no tick running can start, naming it", async () => {
      const tq = h.make({ report: { timeoutMs: 4_000, perform: () => {} } });
      await tq.enqueueBulk([
        { name: "report", args: [1] },
        { name: "report", args: [2] },
      ]);
      await tq.tick({ budgetMs: 900 });
      const health = await run("health");
      expect(health.code).toBe(5);
      expect(health.stdout).toMatch(
        /^warnings\nlast tick: .*\n\nwarning: 2 job\(s\) of "report" in queue "default" cannot start: its timeoutMs 4000 is above the budget of every tick that served the queue lately \(at most 900 ms\)/,
      );
      const { body } = await json<{ ok: boolean; warnings: string[] }>("health");
      expect(body).toMatchObject({ ok: false, warnings: [expect.stringContaining('"report"')] });
    });

    it("says what is wrong, with exit codes that mean it", async () => {
      const queued = (await run("enqueue", "hello", "[]")).stdout.trim();
      const cases: [string[], number, RegExp][] = [
        [["jobs", "show", "nope"], 3, /no job with jid "nope"/],
        [["jobs", "delete", "nope"], 3, /no job with jid "nope"/],
        [["jobs", "retry", queued], 4, /it is queued/],
        [["jobs", "list", "finished"], 2, /state must be one of queued, scheduled, retry, dead, running/],
        [["jobs", "list", "dead", "--cursor", "bogus"], 2, /cursor is malformed/],
        [["jobs", "list", "dead", "--limit", "many"], 2, /--limit must be a whole number/],
        [["jobs", "retry"], 2, /give a jid, or --all STATE/],
        [["jobs", "retry", "x", "--all", "dead"], 2, /not both/],
        [["enqueue", "hello", "not json"], 2, /args must be a JSON array/],
        [["enqueue", "nope", "[]", "--jobs", JOBS], 2, /Unknown job "nope"/],
        [["tick"], 2, /required option '--jobs <module>'/],
        [["tick", "--jobs", "test/fixtures/missing.mjs"], 2, /cannot import it/],
        [["jobz"], 2, /unknown command 'jobz'/],
      ];
      // two at a time: a dozen Node processes at once would starve the other test files' timing on a small machine
      const results: Awaited<ReturnType<typeof run>>[] = [];
      for (let i = 0; i < cases.length; i += 2)
        results.push(...(await Promise.all(cases.slice(i, i + 2).map(([args]) => run(...args)))));
      results.forEach((result, i) => {
        const [args, code, message] = cases[i]!;
        expect(result.code, args.join(" ")).toBe(code);
        expect(result.stderr, args.join(" ")).toMatch(message);
      });
      const { code, body } = await json("jobs", "show", "nope");
      expect(code).toBe(3);
      expect(body).toMatchObject({ code: "NOT_FOUND", error: expect.stringMatching(/no job/) });
    });
  },
  { timeout: SPAWNS_MS },
);

describe("the tickq CLI without a Redis", { timeout: SPAWNS_MS }, () => {
  let cli: Cli;
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());

  it("exits 2 with no connection settings or a URL of the wrong scheme, 1 when Redis or the REST server does not answer, 0 for --help and --version", async () => {
    const none = await cli.run(["stats"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/set REDIS_URL .*, or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN/);
    const down = await cli.run(["stats"], { REDIS_URL: "redis://127.0.0.1:1" });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /^tickq: Redis at redis:\/\/127\.0\.0\.1:1 is unreachable \(.*ECONNREFUSED.*\): is it running\? Check REDIS_URL/,
    );
    expect(down.stderr).not.toMatch(/max retries/i);
    const wrongScheme = await cli.run(["stats"], { REDIS_URL: "http://127.0.0.1:7101" });
    expect(wrongScheme.code).toBe(2);
    expect(wrongScheme.stderr).toMatch(
      /^tickq: REDIS_URL must start with redis:\/\/ .*not http:\/\/; .*set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN instead/,
    );
    const port = await freePort(); // a REST server that is not running
    const rest = await cli.run(["stats"], {
      UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${port}`,
      UPSTASH_REDIS_REST_TOKEN: "rest-token-never-printed",
    });
    expect(rest.code).toBe(1);
    expect(rest.stderr).toMatch(
      new RegExp(
        `request to http://127\\.0\\.0\\.1:${port} failed .*ECONNREFUSED.*is the REST server up at UPSTASH_REDIS_REST_URL\\?`,
      ),
    );
    expect(rest.stderr).not.toContain("rest-token-never-printed");
    const health = await cli.json(["health"], { REDIS_URL: "redis://127.0.0.1:1" });
    expect(health).toMatchObject({ code: 1, body: { code: "REDIS" } });
    expect(await cli.run(["--version"])).toMatchObject({ code: 0, stdout: "test\n" });
    const help = await cli.run(["jobs", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/list \[options\] <state>/);
  });
});
