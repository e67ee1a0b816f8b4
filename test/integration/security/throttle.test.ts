// Repeated bearer failures from one client are slowed down: after 10 in a
// minute the client is refused (429, Retry-After) whatever it sends, the
// right secret included, so guessing gains nothing; other clients are not.
// The counting script, run twice with the same arguments, only counts.
import { describe, expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { startServer } from "../../../src/platforms/node/server.js";
import { redisThrottle, THROTTLE_LIMIT } from "../../../src/http/throttle.js";
import { scripts } from "../../../src/lua/index.js";

const throttleScript = scripts.throttle;
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { redisUrl } from "../../helpers/redis.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";

const SECRET = "throttle-secret-0123456789";

describe("bearer failures on the Node server", () => {
  const h = useHarness(adapterCases[0]!, "sec-throttle");

  it("refuses a client after 10 failures in a minute, even with the right secret", async () => {
    const server = await startServer({
      redisUrl: redisUrl(),
      jobs: {},
      prefix: h.prefix,
      port: 0,
      secret: SECRET,
      tickEveryMs: 0,
    });
    try {
      const stats = (token: string) => fetch(`${server.url}/stats`, { headers: { authorization: `Bearer ${token}` } });
      expect((await stats(SECRET)).status).toBe(200);
      for (let i = 0; i < THROTTLE_LIMIT; i++) expect((await stats(`guess-${i}-0123456789abcdef`)).status).toBe(401);
      const refused = await stats(SECRET);
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: "THROTTLED" });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
      const keys = await h.redis.keys(`${h.prefix}auth-failures:*`);
      expect(keys).toHaveLength(1);
      expect(await h.redis.pttl(keys[0]!)).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});

describe("failed dashboard logins on the Node server", () => {
  const h = useHarness(adapterCases[0]!, "sec-throttle-login");

  it("refuses a client after 10 failures in a minute, even with the right secret", async () => {
    const server = await startServer({
      redisUrl: redisUrl(),
      jobs: {},
      prefix: h.prefix,
      port: 0,
      secret: SECRET,
      tickEveryMs: 0,
      dashboard: dashboard(),
    });
    try {
      const login = (secret: string) =>
        fetch(`${server.url}/dashboard/login`, {
          method: "POST",
          body: new URLSearchParams({ secret }),
          headers: { "sec-fetch-site": "same-origin" },
          redirect: "manual",
        });
      for (let i = 0; i < THROTTLE_LIMIT; i++) expect((await login(`guess-${i}`)).status).toBe(401);
      const refused = await login(SECRET);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("set-cookie")).toBeNull();
      // the API shares the count: the same client's bearer calls wait too
      expect((await fetch(`${server.url}/stats`, { headers: { authorization: `Bearer ${SECRET}` } })).status).toBe(429);
    } finally {
      await server.close();
    }
  });
});

describe.each(adapterCases)("the throttle over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sec-throttle-script");

  it("counts per client: one client's failures do not refuse another", async () => {
    const throttle = redisThrottle(h.make({}), () => undefined)!;
    for (let i = 0; i < THROTTLE_LIMIT; i++) await throttle.failed("10.0.0.1");
    expect(await throttle.blockedFor("10.0.0.1")).toBeGreaterThan(0);
    expect(await throttle.blockedFor("10.0.0.2")).toBe(0);
  });

  it("throttle script run twice: a check changes nothing, a resent failure counts once", async () => {
    const { twice, run } = scriptCalls(h);
    const key = "auth-failures:10.0.0.9";
    expect((await twice(throttleScript, [key], ["check", 60_000, 2, ""])).first).toBe(0);
    expect(await h.redis.exists(`${h.prefix}${key}`)).toBe(0);
    expect((await twice(throttleScript, [key], ["fail", 60_000, 2, "attempt-1"])).first).toBe(0);
    expect(await h.redis.scard(`${h.prefix}${key}`)).toBe(1);
    expect(await h.redis.pttl(`${h.prefix}${key}`)).toBeGreaterThan(0);
    // the limit reached: refused for the rest of the window, in both runs (the wait left is the clock's)
    const args = ["fail", 60_000, 2, "attempt-2"];
    const first = Number(await run(throttleScript, [key], args));
    const after = await snapshot(h.redis, h.prefix);
    const second = Number(await run(throttleScript, [key], args));
    expect(await snapshot(h.redis, h.prefix)).toEqual(after);
    expect(await h.redis.scard(`${h.prefix}${key}`)).toBe(2);
    for (const ms of [first, second]) expect(ms > 0 && ms <= 60_000).toBe(true);
  });
});
