// What a secret kind may do is decided by the route that answers, not by how
// the request spells its path: the router also answers GET /tick/ with the
// tick route, and a read-only secret must not start a tick through it.
import { describe, expect, it } from "vitest";
import { startServer } from "../../../src/platforms/node/server.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { redisUrl } from "../../helpers/redis.js";

const ADMIN = "spelling-admin-secret-0123456789";
const READ = "spelling-read-secret-0123456789";
const CRON = "spelling-cron-secret-0123456789";

describe("secret kinds and the spelling of a path", () => {
  const h = useHarness(adapterCases[0]!, "sec-route-spelling");

  it("refuses a read-only secret every spelling of /tick, and runs no job", async () => {
    let ran = 0;
    const server = await startServer({
      redisUrl: redisUrl(),
      prefix: h.prefix,
      port: 0,
      secret: ADMIN,
      readSecret: READ,
      tickSecret: CRON,
      tickEveryMs: 0,
      jobs: { counted: () => void ran++ },
    });
    try {
      await server.tickq.enqueue("counted", [], { kick: false });
      const call = (path: string, token: string, method = "GET") =>
        fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
      for (const path of ["/tick", "/tick/", "/tick//", "/%74ick", "/%74ick/"]) {
        const res = await call(path, READ);
        expect([403, 404], path).toContain(res.status);
      }
      expect(ran).toBe(0);
      expect((await call("/stats/", READ)).status).not.toBe(403); // reading still works however it is spelt
      expect((await call("/tick/", CRON)).status).toBe(200); // and the tick secret still ticks
      expect(ran).toBe(1);
    } finally {
      await server.close();
    }
  });
});
