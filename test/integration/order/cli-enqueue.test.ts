// `tickq enqueue --priority P --group G` enqueues as the options of
// enqueue do; a priority that is not a whole number, or out of range, exits
// 2 (bad usage) and writes nothing: the CLI is a door like any other.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { buildCli, type Cli } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";

// The CLI picks its adapter from the env: the "upstash" case would run restAdapter again.
const connections = adapterCases.filter((c) => c.name !== "upstash");

describe.each(connections)("tickq enqueue --priority --group over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "order-cli");
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

  it("enqueues with a priority and a group", async () => {
    const urgent = await run("enqueue", "mail", '["a"]', "--priority", "-7");
    expect(urgent).toMatchObject({ code: 0, stderr: "" });
    const grouped = await run("enqueue", "mail", '["b"]', "--group", "tenant-1", "--priority", "3");
    expect(grouped.code).toBe(0);
    expect(await h.redis.zcard(`${h.prefix}prio:default`)).toBe(1);
    const [job] = await h.redis.zrange(`${h.prefix}group:default tenant-1`, "0", "-1");
    expect(JSON.parse(job!)).toMatchObject({ tickq_priority: 3, tickq_group: "tenant-1" });
  });

  it("a priority that is no whole number, or past ±1,000: exit 2, nothing written", async () => {
    for (const bad of ["1.5", "high", "1001"]) {
      const result = await run("enqueue", "mail", "[]", "--priority", bad);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/priority must be/);
    }
    expect(await h.redis.keys(`${h.prefix}*`)).toEqual([]);
  });
});
