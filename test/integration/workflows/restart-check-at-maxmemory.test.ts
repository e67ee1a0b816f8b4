// Restart detection writes its record (P.."boot": src/lua/lib/tick/restart-hold.lua) from the tick's
// scripts, also while Redis is full (maxmemory, noeviction): after a save, or over a record a release before
// `sure` left (a rolling deploy), a call reads INFO and writes `lastsave` and `sure`. The scripts that check
// are allow-oom, so the runs a tick holds when Redis fills still commit, and no lease is taken as lost.
// Private redis-server on its own port, stopped by PID.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTickq, type JobLogger } from "../../../src/index.js";
import { startFullRedis, type FullRedis } from "../../helpers/full-redis.js";

let full: FullRedis;
beforeAll(async () => {
  full = await startFullRedis();
});
afterAll(async () => {
  await full?.stop();
});

it("a tick whose calls find the boot record unsure while Redis is full commits the runs it holds", async () => {
  const o = full.open("ioredis");
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let reached!: () => void;
  const running = new Promise<void>((resolve) => (reached = resolve));
  const logged: string[] = [];
  const logger: JobLogger = { info: () => {}, warn: (m) => void logged.push(m), error: (m) => void logged.push(m) };
  const tq = createTickq({
    redis: o.adapter,
    prefix: "oom-boot:",
    jobs: {},
    logger,
    workflows: {
      w: {
        run: async (_: null, step) => {
          await step.run("a", async () => {
            reached();
            await gate;
            return 1;
          });
          await step.run("b", () => 2);
          return 3;
        },
      },
    },
  });
  try {
    for (let i = 0; i < 5; i++) await tq.workflows.start("w", null, { id: `r${i}` });
    const ticking = tq.tick({ budgetMs: 5_000, cancelCheckMs: 60_000 });
    await running;
    // As a tick of the release before `sure` left it after a save: the next call reads INFO and writes. No
    // extend comes meanwhile (every 10 s here).
    await full.admin.hdel("oom-boot:boot", "sure");
    await full.admin.hset("oom-boot:boot", "lastsave", "1");
    await full.pinFull();
    open();
    const report = await ticking;
    expect(report.leaseLost).toBe(false);
    expect(report.workflows).toMatchObject({ completed: 5, lost: 0 });
    expect(logged).toEqual([]);
    const boot = await full.admin.hgetall("oom-boot:boot");
    expect(boot.lastsave).toBe(String(await full.admin.lastsave())); // written while full
  } finally {
    await full.unpin();
    await o.close();
  }
}, 30_000);
