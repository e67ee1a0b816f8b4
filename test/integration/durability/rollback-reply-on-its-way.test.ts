// The chaos rollback phase (bench/chaos/rollback-phase.ts) over HTTP: the
// local REST server runs in the driver's process, so a reply Redis sent
// just before its SIGKILL reaches the driver after the kill — a turn of the
// event loop later at the least, more at load. The write it answers ran on
// the Redis that died and is forgotten with its last second, yet it was
// acknowledged after the kill: judged by its acknowledgement alone it looked
// like a write of the restarted Redis, lost seconds before the next kill
// (the ordered payload o-29 of a run at load). The judge also keeps when the
// send was made: one made before a kill may have run before it.
// Here the race is forced: the REST server writes the enqueue to Redis, this
// process waits (as one the kernel does not schedule) while Redis runs it,
// then kills Redis and cuts its AOF back to before the enqueue; the reply
// reaches the driver 5 ms late, as at load. Private Redis on its own port,
// stopped by PID; the REST server is the local one, over it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { openEndpoint } from "../../../bench/chaos/connect.js";
import { openRollbackLedger, rollbackTickq } from "../../../bench/chaos/rollback-jobs.js";
import { judgeRollback } from "../../../bench/chaos/rollback-judge.js";
import { sendAll, type Send } from "../../../bench/chaos/rollback-plan.js";
import { startRollbackRedis, type Rollback, type RollbackRedis } from "../../../bench/chaos/rollback-redis.js";
import { sleep } from "../../../bench/chaos/rng.js";
import { listen, type Listening } from "../../../src/platforms/node/listen.js";
import { createUpstashLocalApp } from "../../../tools/upstash-local/app.js";

const TOKEN = "rollback-reply-on-its-way-token";
const PREFIX = "reply-on-its-way:";

let server: RollbackRedis;
let restRedis: Redis;
let admin: Redis;
let http: Listening;
/** Set while the next script call the REST server sends is to be cut off by a rollback. */
let cutNext: { size: number; rollback?: Promise<Rollback> } | undefined;

beforeAll(async () => {
  server = await startRollbackRedis({ appendfsync: "always" });
  restRedis = new Redis(server.redis.url, { maxRetriesPerRequest: 1 });
  restRedis.on("error", () => {});
  admin = new Redis(server.redis.url, { maxRetriesPerRequest: null });
  admin.on("error", () => {});
  const send = restRedis.callBuffer.bind(restRedis) as (...args: unknown[]) => Promise<unknown>;
  const held = Object.assign(Object.create(restRedis) as Redis, {
    callBuffer: (...args: unknown[]) => {
      const reply = send(...args); // written to Redis now
      const cut = cutNext;
      if (!cut || !String(args[0]).toUpperCase().startsWith("EVAL")) return reply;
      cutNext = undefined;
      // Nothing of this process runs meanwhile: Redis runs the script and answers into the socket.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      cut.rollback = server.rollbackTo(cut.size); // SIGKILL before it returns
      return reply.then(async (value) => (await sleep(5), value));
    },
  });
  http = await listen(createUpstashLocalApp({ redis: held, token: TOKEN }).fetch, 0);
}, 30_000);

afterAll(async () => {
  await http?.close();
  restRedis?.disconnect();
  admin?.disconnect();
  await server?.stop();
});

describe("the rollback phase over HTTP", () => {
  it("counts an enqueue sent before a kill and answered after it, then gone, in that rollback's window", async () => {
    const opened = openEndpoint({ adapter: "upstash", url: http.url, token: TOKEN });
    const tq = rollbackTickq(
      opened.adapter,
      PREFIX,
      openRollbackLedger(admin, `${PREFIX}ledger:`, () => []),
      300,
    );
    try {
      // Loads the script, so the enqueue below is one EVALSHA that writes.
      await tq.enqueueOrdered("ordered", { id: "id-0", payload: { n: 0, ms: 1 } });
      const keptUpTo = Date.now();
      const cut: NonNullable<typeof cutNext> = { size: await server.aofSize() };
      cutNext = cut;
      const send: Send = { kind: "ordered", unit: "o-1", id: "id-0", n: 1, ms: 1 };
      const sent = await sendAll(tq, [send], 0);
      const rollback = { ...(await cut.rollback!), keptUpTo };
      // Answered once, after the kill; sent before it.
      expect(sent.resends).toBe(0);
      expect(sent.sentAt.get("o-1")!).toBeLessThanOrEqual(rollback.killedAt);
      expect(sent.acked.get("o-1")!).toBeGreaterThan(rollback.killedAt);
      // And gone: the Redis that answered it died, and its AOF was cut back to before it.
      expect(rollback.bytesCut).toBeGreaterThan(0);
      expect(await admin.zscore(`${PREFIX}o:ordered:p:id-0`, JSON.stringify({ n: 1, ms: 1 }))).toBeNull();
      expect(await admin.zscore(`${PREFIX}o:ordered:p:id-0`, JSON.stringify({ n: 0, ms: 1 }))).not.toBeNull();

      const evidence = {
        rollbacks: [rollback],
        enqueued: sent.acked,
        sent: sent.sentAt,
        histories: new Map(),
        completed: new Set<string>(),
        present: new Map<string, string>(),
        backwards: [],
        overlaps: [],
      };
      const verdict = judgeRollback(evidence);
      expect(verdict.lostOld).toEqual([]);
      expect(verdict.lostInWindow).toBe(1);
      expect(verdict.lostAnsweredAfterKill).toBe(1);
      // By its acknowledgement alone, the loss of a write the restarted Redis made.
      expect(judgeRollback({ ...evidence, sent: undefined }).lostOld).toHaveLength(1);
    } finally {
      opened.close();
      await admin.del(...(await admin.keys(`${PREFIX}*`)));
    }
  }, 30_000);
});
