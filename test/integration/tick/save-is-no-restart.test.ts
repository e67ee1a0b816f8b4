// An RDB save changes LASTSAVE but not the Redis (src/lua/lib/tick/restart-hold.lua reads INFO's run_id
// to tell the two apart, until a call runs past the save's second). A tick over which Redis saved, and
// whose calls land within that second, must go on as if nothing happened: no lease lost, no workflow
// commit refused, ordered ids and workflow runs handed out, no hold begun. Private redis-server on its
// own port (BGSAVE), stopped by PID.
import { afterAll, beforeAll, expect, it } from "vitest";
import { Redis } from "ioredis";
import { createTickq, type JobLogger } from "../../../src/index.js";
import { openAdapter } from "../../helpers/open-adapter.js";
import { startPrivateRedis, type PrivateRedis } from "../../helpers/private-redis.js";

let server: PrivateRedis;
let admin: Redis;

beforeAll(async () => {
  server = await startPrivateRedis();
  admin = new Redis(server.url);
}, 30_000);

afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

const saving = async () => (await admin.info("persistence")).includes("rdb_bgsave_in_progress:1");

/** A BGSAVE of its own (two runs' steps may ask at once: one waits for the other's), then until it ended. */
async function saved(): Promise<void> {
  for (;;) {
    const started = await admin.bgsave().then(
      () => true,
      (e: Error) => {
        if (!e.message.includes("already in progress")) throw e;
        return false;
      },
    );
    if (started) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  while (await saving()) await new Promise((r) => setTimeout(r, 5));
}

it("a tick over which Redis saved loses no lease, has no commit refused and holds nothing back", async () => {
  const warnings: string[] = [];
  const logger: JobLogger = { info: () => {}, warn: (m) => void warnings.push(m), error: () => {} };
  const prefix = "save-no-restart:";
  const o = openAdapter("ioredis", { redisUrl: server.url, restUrl: "", restToken: "" });
  const ran: string[] = [];
  const tq = createTickq({
    redis: o.adapter,
    prefix,
    logger,
    jobs: { plain: { perform: async () => void ran.push("plain") } },
    ordered: { ordered: { perform: async (id: string) => void ran.push(`ordered ${id}`) } },
    workflows: {
      saving: {
        run: async (_: null, step) => [
          await step.run("a", async () => {
            await saved();
            return "a";
          }),
          await step.run("b", () => "b"),
          await step.run("c", async () => {
            await saved();
            return "c";
          }),
        ],
      },
    },
  });
  try {
    await tq.tick({ budgetMs: 1_000 }); // the boot record is written
    const run = (await admin.hget(`${prefix}boot`, "run")) ?? "";
    await tq.workflows.start("saving", null, { id: "w1" });
    await tq.workflows.start("saving", null, { id: "w2" });
    await tq.enqueue("plain", []);
    await tq.enqueueOrdered("ordered", { id: "a", payload: 1 });
    const report = await tq.tick({ budgetMs: 10_000, cancelCheckMs: 50 });
    expect(report.leaseLost).toBe(false);
    expect(report.workflows).toMatchObject({ lost: 0, completed: 2, steps: 6 });
    expect(ran.sort()).toEqual(["ordered a", "plain"]);
    const boot = await admin.hgetall(`${prefix}boot`);
    expect(boot.run).toBe(run);
    expect(warnings).toEqual([]);
    // A tick begun in the save's second is handed its runs and ids too.
    await tq.workflows.start("saving", null, { id: "w3" });
    await saved();
    const next = await tq.tick({ budgetMs: 10_000, cancelCheckMs: 50 });
    expect(next.leaseLost).toBe(false);
    expect(next.workflows).toMatchObject({ lost: 0, completed: 1 });
  } finally {
    await o.close();
  }
}, 60_000);
