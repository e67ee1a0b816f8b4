// At maxmemory (noeviction), on a private redis-server: a tick still runs and
// finishes (finish is allow-oom: its acks free memory), but its summary is not
// added to the recent ticks' list — nothing is written for it while Redis is
// full — and the list fills again once Redis has room.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { onlySelected } from "../../helpers/adapter-names.js";
import { startFullRedis, type FullRedis } from "../../helpers/full-redis.js";

let full: FullRedis;
beforeAll(async () => {
  full = await startFullRedis();
});
afterAll(async () => {
  await full?.stop();
});

describe.each(onlySelected([{ name: "ioredis" }, { name: "rest" }]))(
  "recent ticks at maxmemory over $name",
  ({ name }) => {
    it("writes no summary while Redis is full, and writes again once it has room", async () => {
      await full.unpin();
      await full.admin.flushall(); // the private server of this file only
      const opened = full.open(name);
      try {
        const tq = createTickq({ redis: opened.adapter, prefix: "recentmem:", jobs: { ok: () => {} } });
        await tq.enqueue("ok", []);
        await tq.tick({ budgetMs: 2_000 }); // loads the scripts before Redis is pinned full
        expect(await full.admin.llen("recentmem:ticks:recent")).toBe(1);
        await full.pinFull();
        const report = await tq.tick({ budgetMs: 2_000 });
        expect(report.leaseLost).toBe(false);
        expect(await full.admin.llen("recentmem:ticks:recent")).toBe(1);
        await full.unpin();
        const later = await tq.tick({ budgetMs: 2_000 });
        expect((await tq.ticks.recent()).map((t) => t.id)[0]).toBe(later.tickId);
      } finally {
        await full.unpin();
        await opened.close();
      }
    });
  },
);
