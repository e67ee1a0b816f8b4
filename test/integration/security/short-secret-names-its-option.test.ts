// A secret too short to use fails the start with a message naming the option
// the caller set: createApp's `secrets` (and `readSecrets`, …), startServer's
// `secret` (and `readSecret`, …) — never the other entry point's.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { createTickq } from "../../../src/index.js";
import { startServer } from "../../../src/platforms/node/server.js";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { directRedis } from "../../helpers/redis.js";

const SHORT = "short-secret";
const GOOD = "a-secret-long-enough-0123";

const failure = async (start: () => unknown): Promise<string> => {
  try {
    await start();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("started with a short secret");
};

describe("a short secret's start-up error", () => {
  it("names startServer's own option, secret or readSecret", async () => {
    const base = { redisUrl: "redis://127.0.0.1:6379", jobs: {}, port: 0, tickEveryMs: 0 };
    const admin = await failure(() => startServer({ ...base, secret: SHORT }));
    expect(admin).toMatch(/^startServer: .*the secret option\).*shorter than 16/);
    expect(admin).not.toContain("secrets option");
    const read = await failure(() => startServer({ ...base, secret: GOOD, readSecret: SHORT }));
    expect(read).toContain("the readSecret option");
  });

  it("names createApp's own option, secrets or tickSecrets", async () => {
    const client = directRedis();
    try {
      const tickq = createTickq({ redis: ioredisAdapter(client), jobs: {} });
      expect(await failure(() => createApp({ tickq, secrets: [SHORT] }))).toMatch(
        /^createApp: .*the secrets option\).*shorter than 16/,
      );
      expect(await failure(() => createApp({ tickq, secrets: [GOOD], tickSecrets: [SHORT] }))).toContain(
        "the tickSecrets option",
      );
    } finally {
      client.disconnect();
    }
  });
});
