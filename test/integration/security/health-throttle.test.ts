// /health answers a caller with a secret in more detail, so it tells a right
// guess from a wrong one: its failures count toward the same per-client
// throttle as the API's, and a throttled client is refused there too.
import { describe, expect, it } from "vitest";
import { startServer } from "../../../src/platforms/node/server.js";
import { THROTTLE_LIMIT } from "../../../src/http/throttle.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { redisUrl } from "../../helpers/redis.js";

const SECRET = "health-throttle-secret-0123456789";

describe("guessing a secret through /health on the Node server", () => {
  const h = useHarness(adapterCases[0]!, "sec-health-throttle");

  it("counts wrong secrets toward the throttle, and refuses a throttled client the detailed answer", async () => {
    const server = await startServer({
      redisUrl: redisUrl(),
      jobs: {},
      prefix: h.prefix,
      port: 0,
      secret: SECRET,
      tickEveryMs: 0,
    });
    try {
      const health = (token: string) =>
        fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${token}` } });
      expect(await (await health(SECRET)).json()).toHaveProperty("warnings");
      for (let i = 0; i < THROTTLE_LIMIT; i++)
        expect(await (await health(`guess-${i}-0123456789abcdef`)).json()).toEqual({ ok: true });
      const refused = await health(SECRET);
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: "THROTTLED" });
      expect((await fetch(`${server.url}/stats`, { headers: { authorization: `Bearer ${SECRET}` } })).status).toBe(429);
      // a check with no credential (a load balancer) is never refused
      expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ ok: true });
    } finally {
      await server.close();
    }
  });
});
