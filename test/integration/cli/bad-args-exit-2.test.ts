// `tickq enqueue --jobs module` checks args against the job's schema: a
// refusal exits 2 (bad usage) with the path that failed on stderr, and
// writes nothing; args the schema accepts are enqueued as its output.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { buildCli, type Cli } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

const JOBS = "test/fixtures/args-jobs.mjs";
// The CLI picks its adapter from the env: the "upstash" case would run restAdapter again, "node-redis" ioredis.
const connections = adapterCases.filter((c) => c.name !== "upstash" && c.name !== "node-redis");

describe.each(connections)("tickq enqueue with bad args over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "args-cli");
  let cli: Cli;
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  const env = (): Record<string, string> =>
    adapterCase.name === "ioredis"
      ? { REDIS_URL: inject("redisUrl") }
      : { UPSTASH_REDIS_REST_URL: inject("restUrl"), UPSTASH_REDIS_REST_TOKEN: inject("restToken") };
  const run = (...args: string[]) => cli.run([...args, "--prefix", h.prefix], env());

  it("args the schema refuses: exit 2, the path on stderr, nothing written", async () => {
    const result = await run("enqueue", "signup", '[{"email":42}]', "--jobs", JOBS);
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toContain('Job "signup": args[0].email: expected string');
    const missing = await run("enqueue", "signup", "--jobs", JOBS);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Job "signup": args[0]: ');
    expect(await h.redis.keys(`${h.prefix}*`)).toEqual([]);
  });

  it("args the schema accepts: exit 0 and the jid", async () => {
    const result = await run("enqueue", "signup", '[{"email":"a@b.c"}]', "--jobs", JOBS);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout.trim()).toMatch(/^[0-9a-f]{24}$/);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
  });
});
