import type { AddressInfo } from "node:net";
import express from "express";
import { Redis } from "ioredis";
import { it, vi } from "vitest";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { tickqExpress } from "../../../src/platforms/express/index.js";
import { directRedis, uniquePrefix } from "../../helpers/redis.js";
it("probe", async () => {
  const lines: string[] = [];
  for (const m of ["error", "warn", "log"] as const) vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void lines.push(`${m}: ${a.map(String).join(" ")}`));
  for (const dead of [false, true]) {
  const redis = dead ? new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null }) : directRedis();
  const handler = tickqExpress({ redis: ioredisAdapter(redis), jobs: { bad: () => { throw new Error("boom"); } }, prefix: uniquePrefix("probe"), tickEveryMs: dead ? 1000 : 0, env: { TICKQ_SECRET: "probe-secret-0123456789" } });
  const app = express();
  app.use("/tickq", handler);
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tickq`;
  lines.push(`--- dead=${dead}`);
  if (!dead) await handler.tickq.enqueue("bad", []);
  for (const [path, auth] of [["/tick", "wrong-secret-0123456789xx"], ["/tick", "probe-secret-0123456789"], ["/stats", "wrong"], ["/stats", ""], ["/health", ""], ["/health", "probe-secret-0123456789"], ["/dashboard", ""], ["/jobs?state=dead", "probe-secret-0123456789"]]) {
    const r = await fetch(`${url}${path}`, { method: path === "/tick" ? "POST" : "GET", headers: auth ? { authorization: `Bearer ${auth}` } : {} });
    lines.push(`>>> ${path} ${auth} -> ${r.status} ${(await r.text()).slice(0, 200)}`);
  }
  await new Promise((r) => setTimeout(r, 1500));
  server.closeAllConnections(); server.close();
  await handler.close();
  redis.disconnect();
  }
  process.stdout.write(lines.join("\n") + "\n");
}, 20000);
