import { Redis } from "ioredis";
import { it, vi } from "vitest";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { tickqExpress } from "../../../src/platforms/express/index.js";
import { uniquePrefix } from "../../helpers/redis.js";
it("probe", async () => {
  const lines: string[] = [];
  const t0 = performance.now();
  for (const m of ["error", "warn", "log", "info"] as const) vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void lines.push(`${Math.round(performance.now()-t0)} ${m}: ${a.map(String).join(" ").split("\n")[0]}`));
  const redis = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  redis.on("error", () => {});
  const handler = tickqExpress({ redis: ioredisAdapter(redis), jobs: {}, prefix: uniquePrefix("probe"), tickEveryMs: 1000, env: { TICKQ_SECRET: "probe-secret-0123456789" } });
  await new Promise((r) => setTimeout(r, 1500));
  await handler.close();
  process.stdout.write(lines.join("\n") + "\n");
}, 20000);
