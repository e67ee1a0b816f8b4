// What tickq prints cannot be turned against the one reading it. A
// password in REDIS_URL is never printed: `tickq serve`, `tickq
// redis-http`, `npm start` and `npm run redis-http` show the URL with its
// password masked, against a redis-server of the test's own that needs one.
// Bytes from job data (an error message quoting an attacker's input, a
// queue name a Ruby client wrote) reach the CLI's tables, --json and the
// failure log line as visible escapes, never as control characters that
// retitle a terminal, erase and rewrite its lines or plant a link; names
// that could not be printed safely are refused when they are created.
import { spawn } from "node:child_process";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort } from "../../../src/platforms/node/find-redis.js";
import { TickqError } from "../../../src/index.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli, cliConnections, cliEnv } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";
import { startPrivateRedis, type PrivateRedis } from "../../helpers/private-redis.js";

const PASSWORD = "RedisPassword0ForPrinting";
const SECRET = "printing-secret-0123456789";

/** Runs a command until its output shows `ready`, then stops it; everything it printed. */
async function printed(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<string> {
  const child = spawn(command, args, { env: { PATH: process.env.PATH ?? "", ...env } });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk));
  try {
    for (let i = 0; i < 300 && !ready.test(out) && child.exitCode === null; i++)
      await new Promise((r) => setTimeout(r, 50));
    return out;
  } finally {
    child.kill("SIGTERM");
  }
}

describe("REDIS_URL with a password, printed", () => {
  let redis: PrivateRedis;
  let url: string;
  let cli: Cli;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    const client = new Redis(redis.url);
    await client.config("SET", "requirepass", PASSWORD);
    client.disconnect();
    url = redis.url.replace("redis://", `redis://default:${PASSWORD}@`);
    cli = await buildCli({});
  }, 30_000);
  afterAll(async () => {
    cli?.dispose();
    await redis?.stop();
  });

  const check = (out: string, ready: RegExp) => {
    expect(out).toMatch(ready);
    expect(out).toContain("redis://default:***@127.0.0.1");
    expect(out).not.toContain(PASSWORD);
  };

  it("is masked, and the credentials named as the cause, when the password is wrong", async () => {
    const wrong = url.replace(PASSWORD, "not-the-password");
    const refused = await cli.run(["stats"], { REDIS_URL: wrong });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused the credentials .*check the user and password in REDIS_URL/);
    expect(refused.stderr).not.toContain("not-the-password");
    expect(refused.stderr).not.toMatch(/is it running/);
  });

  it("says a single Redis answered no cluster slots when --cluster names it", async () => {
    const single = await cli.run(["--cluster", "stats"], { REDIS_URL: url });
    expect(single.code).not.toBe(0);
    expect(single.stderr).toMatch(/answered no cluster slots .*leave out --cluster/);
    expect(single.stderr).not.toContain(PASSWORD);
  });

  it("is masked by tickq serve and tickq redis-http", async () => {
    const serve = await printed(
      process.execPath,
      [cli.path, "serve", "--jobs", "test/fixtures/cli-jobs.mjs", "--port", "0"],
      { REDIS_URL: url, TICKQ_SECRET: SECRET, TICKQ_TEST_REDIS_URL: url },
      /listening on/,
    );
    check(serve, /listening on/);
    const http = await printed(
      process.execPath,
      [cli.path, "redis-http", "--port", "0", "--token", SECRET],
      { REDIS_URL: url },
      /TOKEN=/,
    );
    check(http, /UPSTASH_REDIS_REST_URL=/);
  }, 30_000);

  it("is masked by npm start and npm run redis-http", async () => {
    const tsx = "node_modules/.bin/tsx";
    const start = await printed(
      tsx,
      ["src/cli/dev/start.ts"],
      { REDIS_URL: url, TICKQ_SECRET: SECRET, PORT: String(await freePort()) },
      /listening on/,
    );
    check(start, /listening on/);
    const http = await printed(
      tsx,
      ["tools/upstash-local/main.ts", "--port", "0", "--token", SECRET],
      { REDIS_URL: url },
      /TOKEN=/,
    );
    check(http, /UPSTASH_REDIS_REST_URL=/);
  }, 30_000);
});

const ESC = "\x1b";
/** Retitles the window (OSC 0 … BEL), erases the line and the one above and writes a verdict, plants an OSC 8 link, and ends with C1 CSI, DEL, NUL and a forged line. */
const HOSTILE =
  `invalid email a@b.c${ESC}]0;pwned\x07\r${ESC}[2K${ESC}[1AOK all jobs succeeded` +
  `${ESC}]8;;https://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\\u009b31m\x7f\x00\nforged line`;
/** A control character a terminal may act on; a line break is allowed only where tickq lays out lines. */
const ACTING = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
/** What JSON.stringify leaves raw: C1 and DEL. */
const RAW_IN_JSON = /[\u007f-\u009f]/;

/** Output a terminal cannot act on: no control character but line breaks, the attack shown as escapes, no forged line. */
function expectInert(out: string): void {
  expect(out).not.toMatch(ACTING);
  expect(out).not.toMatch(/^(OK all jobs succeeded|forged line)/m);
}

describeOverAdapters(cliConnections, "bytes from job data, printed by the CLI over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "printing-cli");
  let cli: Cli;
  beforeAll(async () => {
    cli = await buildCli({});
  }, 30_000);
  afterAll(() => cli?.dispose());
  const run = (...args: string[]) => cli.run([...args, "--prefix", h.prefix], cliEnv(adapterCase));

  /** A dead job whose error quotes HOSTILE, a JSON.parse SyntaxError quoting it, and a queue name holding ESC and NUL. */
  async function hostileData() {
    const tq = h.make({
      signup: {
        retry: false,
        perform: (args: [string]) => {
          throw new Error(`invalid email ${args[0]}`);
        },
      },
      parse: { retry: false, perform: (args: [string]) => JSON.parse(args[0]) as unknown },
      ok: () => {},
    });
    const [signup, parse] = await tq.enqueueBulk([
      { name: "signup", args: [HOSTILE.slice("invalid email ".length)] },
      { name: "parse", args: [`x${ESC}]0;pwned\x07`] },
    ]);
    await tq.tick({ budgetMs: 3_000 });
    // As a Ruby client may write it: tickq refuses such a name at enqueue, but Redis can hold one.
    const queue = `evil${ESC}[2J\x00q`;
    await h.redis.sadd(`${h.prefix}queues`, queue);
    await h.redis.lpush(`${h.prefix}queue:${queue}`, JSON.stringify({ class: "ok", args: [], jid: "j1", queue }));
    return { signup: signup!, parse: parse!, queue };
  }

  it("jobs list dead, jobs show and jobs result show the bytes as escapes", async () => {
    const { signup, parse } = await hostileData();
    const listed = await run("jobs", "list", "dead");
    expect(listed.code).toBe(0);
    expectInert(listed.stdout + listed.stderr);
    expect(listed.stdout).toContain(signup);
    expect(listed.stdout).toContain("\\x1b]0;pwned\\x07");

    for (const jid of [signup, parse]) {
      const shown = await run("jobs", "show", jid);
      expect(shown.code).toBe(0);
      expectInert(shown.stdout + shown.stderr);
      expect(shown.stdout).toContain("\\x1b]0;pwned\\x07");
    }
    const result = await run("jobs", "result", signup);
    expect(result.code).toBe(0);
    expectInert(result.stdout + result.stderr);
    expect(result.stdout).toContain("\\x9b31m\\x7f\\x00\\nforged line");
  });

  it("--json stays valid JSON, with C1 and DEL as \\u escapes, and parses back to the stored bytes", async () => {
    const { signup } = await hostileData();
    for (const args of [
      ["jobs", "show", signup],
      ["jobs", "list", "dead"],
      ["jobs", "result", signup],
      ["stats"],
      ["queues", "list"],
    ]) {
      const out = await run(...args, "--json");
      expect(out.code).toBe(0);
      expect(out.stdout).not.toMatch(ACTING);
      expect(out.stdout).not.toMatch(RAW_IN_JSON);
      expect(() => JSON.parse(out.stdout)).not.toThrow();
    }
    const shown = JSON.parse((await run("jobs", "show", signup, "--json")).stdout) as {
      job: { error_message: string };
    };
    expect(shown.job.error_message).toBe(HOSTILE);
    expect((await run("jobs", "show", signup, "--json")).stdout).toContain("\\u009b31m\\u007f\\u0000");
  });

  it("stats and queues list show a queue name holding ESC and NUL as escapes", async () => {
    await hostileData();
    for (const args of [["stats"], ["queues", "list"]]) {
      const out = await run(...args);
      expect(out.code).toBe(0);
      expectInert(out.stdout + out.stderr);
      expect(out.stdout).toContain("evil\\x1b[2J\\x00q");
    }
  });

  it("workflows show prints a step's name and a run's error as escapes", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          signup: {
            retry: 0,
            run: async (input: { email: string }, step) => {
              await step.run(`check${ESC}[2K`, () => 1);
              await step.run(
                "send",
                () => {
                  throw new Error(`invalid email ${input.email}`);
                },
                { retry: 0 },
              );
            },
          },
        },
      },
    );
    const id = await tq.workflows.start("signup", { email: HOSTILE });
    for (let k = 0; k < 5 && (await tq.workflows.get(id))?.status !== "failed"; k++) await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get(id))?.status).toBe("failed");
    const shown = await run("workflows", "show", id);
    expect(shown.code).toBe(0);
    expectInert(shown.stdout + shown.stderr);
    expect(shown.stdout).toContain("\\x1b]0;pwned\\x07");
    expect(shown.stdout).toContain("check\\x1b[2K");
    const json = await run("workflows", "show", id, "--json");
    expect(json.stdout).not.toMatch(RAW_IN_JSON);
    expect((JSON.parse(json.stdout) as { error: { message: string } }).error.message).toBe(`invalid email ${HOSTILE}`);
  });

  it("an error quoting what was typed prints as escapes", async () => {
    const missing = await run("jobs", "show", `nope${ESC}]0;pwned\x07\u009b`);
    expect(missing.code).toBe(3);
    expectInert(missing.stdout + missing.stderr);
    expect(missing.stderr).toContain(String.raw`"nope\u001b]0;pwned\u0007\u009b"`);
  });
});

describeOverAdapters(adapterCases, "the failure log line over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "printing-log");
  afterEach(() => vi.restoreAllMocks());
  const jobs = {
    signup: {
      retry: false,
      perform: (args: [string], ctx: { log: { info(message: string): void } }) => {
        ctx.log.info(`checking ${args[0]}`);
        throw new Error(`invalid email ${args[0]}`);
      },
    },
  };

  it("shows the bytes of a handler's error and its ctx.log lines as escapes, with the default console logger", async () => {
    const lines: string[] = [];
    const keep = (...parts: unknown[]) => void lines.push(parts.map(String).join(" "));
    vi.spyOn(console, "error").mockImplementation(keep);
    vi.spyOn(console, "warn").mockImplementation(keep);
    vi.spyOn(console, "info").mockImplementation(keep);
    const tq = h.make(jobs, { logger: undefined });
    await tq.enqueue("signup", [HOSTILE]);
    await tq.tick({ budgetMs: 3_000 });
    const failure = lines.filter((l) => l.includes("failed (attempt 1)"));
    expect(failure).toHaveLength(1);
    expect(lines.some((l) => l.includes("checking"))).toBe(true);
    for (const line of lines) {
      expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      expect(line).not.toMatch(/^forged line/m);
    }
    expect(failure[0]).toContain("\\x1b]0;pwned\\x07\\r\\x1b[2K");
  });

  it("gives a structured logger a printable message and printable string fields", async () => {
    const entries: { fields: Record<string, unknown>; message: string }[] = [];
    const keep = (fields: Record<string, unknown>, message: string) => void entries.push({ fields, message });
    const tq = h.make(jobs, { structuredLogger: { info: keep, warn: keep, error: keep } });
    await tq.enqueue("signup", [HOSTILE]);
    await tq.tick({ budgetMs: 3_000 });
    expect(entries.length).toBeGreaterThanOrEqual(2);
    for (const { fields, message } of entries) {
      expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      for (const value of Object.values(fields))
        if (typeof value === "string") expect(value).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      const err = fields.err;
      if (err instanceof Error)
        expect(`${err.message}${err.stack}`).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    }
  });
});

describeOverAdapters(adapterCases, "names that cannot be printed, refused over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "printing-names");
  const refused = async (work: () => unknown, code: string, says: RegExp) => {
    const error = await Promise.resolve()
      .then(work)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(TickqError);
    expect(error).toMatchObject({ code });
    expect((error as Error).message).toMatch(says);
    expect((error as Error).message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  };

  it("refuses a queue, a jid, a group, an ordered id and a workflow run id holding a control character, and writes nothing", async () => {
    const tq = h.make(
      { ok: () => {} },
      {
        ordered: { sync: { perform: () => {} } },
        workflows: { w: { run: async () => 1 } },
      },
    );
    for (const queue of [`q${ESC}[2J`, "q\x00", "q\u009b", "q\x7f"])
      await refused(
        () => tq.enqueue("ok", [], { queue }),
        "BAD_ARGS",
        /queue must be .*without spaces or control characters/,
      );
    await refused(
      () => tq.enqueue("ok", [], { jid: `j${ESC}]0;x\x07` }),
      "BAD_ARGS",
      /jid must be .*control characters/,
    );
    await refused(() => tq.enqueue("ok", [], { group: "g\x9b" }), "BAD_ARGS", /group must be .*control characters/);
    await refused(
      () => tq.enqueueOrdered("sync", { id: `id${ESC}[2K`, payload: {} }),
      "BAD_ARGS",
      /id must be .*without control characters/,
    );
    await refused(
      () => tq.workflows.start("w", null, { id: `run${ESC}]0;x\x07` }),
      "BAD_ARGS",
      /must not hold control characters/,
    );
    expect(await h.redis.keys(`${h.prefix}*`)).toEqual([]);
    // Spaces stay allowed in a run id, as before.
    expect(await tq.workflows.start("w", null, { id: "order 7" })).toBe("order 7");
  });

  it("refuses at createTickq a job name or a served queue holding a control character", async () => {
    await refused(() => h.make({ [`job${ESC}[2K`]: () => {} }), "BAD_OPTIONS", /job name .* control character/);
    await refused(() => h.make({ ok: () => {} }, { queues: ["q\u0085"] }), "BAD_OPTIONS", /control characters/);
  });
});
