// tickqNext's route handlers, called as Next calls them, with an `after` that keeps what it is given:
// tickq's routes and the dashboard answer under /api/tickq, and a kick runs its tick in after().
import { afterAll, describe, expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { tickqNext } from "../../../src/platforms/next/index.js";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

const SECRET = "next-route-secret-01234";
const redis = directRedis();
const prefix = uniquePrefix("next-route");

afterAll(async () => {
  await deleteUnder(redis, prefix);
  redis.disconnect();
});

describe("tickqNext", () => {
  const ran: string[] = [];
  const later: Promise<unknown>[] = [];
  const route = tickqNext({
    redis: ioredisAdapter(redis),
    prefix,
    jobs: { note: ([id]: [string]) => void ran.push(id) },
    after: (task) => void later.push(task),
    env: { TICKQ_SECRET: SECRET },
    dashboard: dashboard(),
  });

  it("serves tickq's routes under /api/tickq, behind the secret, and the dashboard's login there", async () => {
    expect((await route.GET(new Request("http://app.test/api/tickq/stats"))).status).toBe(401);
    const auth = { Authorization: `Bearer ${SECRET}` };
    expect((await route.GET(new Request("http://app.test/api/tickq/stats", { headers: auth }))).status).toBe(200);
    const away = await route.GET(new Request("http://app.test/api/tickq/dashboard"));
    expect(away.status).toBe(303);
    expect(away.headers.get("location")).toBe("/api/tickq/dashboard/login");
    const form = await route.GET(new Request("http://app.test/api/tickq/dashboard/login"));
    expect(await form.text()).toContain('action="/api/tickq/dashboard/login"');
  });

  it("hands a kicked tick to after(), where the job runs", async () => {
    await route.tickq().enqueue("note", ["a"], { kick: true });
    expect(later.length).toBeGreaterThan(0);
    await Promise.all(later);
    expect(ran).toEqual(["a"]);
  });

  it("answers 503, naming nothing of its settings, when it cannot start", async () => {
    const broken = tickqNext({ redis: ioredisAdapter(redis), jobs: {}, after: () => {}, env: {} });
    const res = await broken.POST(new Request("http://app.test/api/tickq/tick", { method: "POST" }));
    expect(res.status).toBe(503);
  });
});
