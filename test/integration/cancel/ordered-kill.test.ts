// Cancel of ordered ids under faults (the fault suite): tick processes run
// ordered ids on a private Redis, each run stamped at its start by the wall
// clock and held past its signal, while this process cancels ids at once
// waiting, fetched and running, then enqueues one more payload to each; one
// of the two tick processes is SIGKILLed, and every client connection is
// killed (CLIENT KILL), mid-cancel. Some ids wait due later, so their
// cancels find them waiting. Judged as the plain jobs' guarantee:
//   a payload enqueued before its id's cancel runs in no run that started
//     after the cancel returned;
//   every such payload either ran before or is in a cancelled record;
//   every payload enqueued after the cancel, and every payload of an id never
//     cancelled, runs; nothing is left waiting, running or dead.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTickq, type OrderedCancelResult, TickqError } from "../../../src/index.js";
import { startUpstashLocal, type UpstashLocalServer } from "../../../tools/upstash-local/server.js";
import type { AdapterCase } from "../../helpers/adapters.js";
import { openAdapter, type Endpoints } from "../../helpers/open-adapter.js";
import { startPrivateRedis, type PrivateRedis } from "../../helpers/private-redis.js";
import { deleteUnder, redisUrl, sleep, uniquePrefix } from "../../helpers/redis.js";
import { spawnTickChild, waitReady, type TickChild } from "../../helpers/tick-children.js";

const IDS = 16;
/** Ids 0..CANCELLED-1 are cancelled; the rest never are. */
const CANCELLED = 11;
/** Ids 0..SCHEDULED-1 are due in a minute: their cancels find them waiting (ready ids are fetched at once). */
const SCHEDULED = 3;
/** The next ids, fetched first, hold their runs this long: their cancels find them held even on a loaded machine. */
const HELD = 4;
const HELD_MS = 1_500;
const TOKEN = "ordered-kill-s3cret";

interface Run {
  id: string;
  fence: number;
  payloads: { id: string; v: string }[];
  at: number;
}

describe("cancel of ordered ids under tick SIGKILL and client kill", () => {
  let priv: PrivateRedis;
  let rest: UpstashLocalServer;
  let ledger: Redis;
  let admin: Redis;
  beforeAll(async () => {
    priv = await startPrivateRedis();
    rest = await startUpstashLocal({ redisUrl: priv.url, token: TOKEN });
    ledger = new Redis(redisUrl());
    admin = new Redis(priv.url);
  });
  afterAll(async () => {
    ledger?.disconnect();
    admin?.disconnect();
    await rest?.close();
    await priv?.stop();
  });

  it.each(["ioredis", "upstash"] as const)(
    "over %s: no payload of a cancelled id runs after its cancel returned, and nothing else is lost",
    async (adapterName) => {
      const endpoints: Endpoints = { redisUrl: priv.url, restUrl: rest.url, restToken: TOKEN };
      const adapterCase: AdapterCase = {
        name: adapterName,
        endpoints: () => endpoints,
        open: () => openAdapter(adapterName, endpoints),
      };
      const prefix = uniquePrefix(`ordered-kill-${adapterName}`);
      const opened = openAdapter(adapterName, endpoints);
      const quiet = { info: () => {}, warn: () => {}, error: () => {} };
      const tq = createTickq({
        redis: opened.adapter,
        prefix,
        jobs: {},
        ordered: { work: { perform: () => {} } },
        logger: quiet,
      });
      const children: TickChild[] = [];
      const spawn = () => {
        const child = spawnTickChild("ordered-child.ts", adapterCase, ledger, prefix, {
          MODE: "stamp",
          LEDGER_URL: redisUrl(),
          LEASE_MS: "600",
          BATCH: "4",
          CONCURRENCY: "4",
          HOLD_MS: "250",
        });
        children.push(child);
        return child;
      };
      /** Sent again while a killed connection fails it; NOT_FOUND is an answer. */
      const retried = async <T>(call: () => Promise<T>): Promise<T | "NOT_FOUND"> => {
        for (let tries = 0; ; tries++) {
          try {
            return await call();
          } catch (error) {
            if (error instanceof TickqError && error.code === "NOT_FOUND") return "NOT_FOUND";
            if (tries > 100) throw error;
            await sleep(20);
          }
        }
      };
      try {
        const ids = Array.from({ length: IDS }, (_, k) => `id-${k}`);
        for (const [k, id] of ids.entries())
          for (const v of ["b1", "b2"]) {
            const delayMs = k < SCHEDULED ? 60_000 : 0;
            const payload = k >= SCHEDULED && k < SCHEDULED + HELD ? { id, v, hold: HELD_MS } : { id, v };
            await tq.enqueueOrdered("work", { id, payload, score: v === "b1" ? 1 : 2, delayMs });
          }
        // Two tick processes from the start: one is SIGKILLed mid-cancel, the other drains what it held.
        const doomed = spawn();
        spawn();
        await waitReady(ledger, prefix, 2);
        // Cancels start once runs do: ready ids are then fetched or running, the scheduled ones waiting.
        for (let i = 0; i < 400 && (await ledger.llen(`${prefix}test:runs`)) === 0; i++) await sleep(25);
        const returnedAt = new Map<string, number>();
        const answers = new Map<string, OrderedCancelResult | "NOT_FOUND">();
        const cancels = ids.slice(0, CANCELLED).map(async (id, k) => {
          // The scheduled ids and the first batch at once (the latter then held by the tick), the rest spread out.
          await sleep(Math.max(0, k - SCHEDULED - HELD + 1) * 90);
          const answer = await retried(() => tq.jobs.cancelOrdered("work", id));
          returnedAt.set(id, Date.now());
          answers.set(id, answer);
          await retried(() => tq.enqueueOrdered("work", { id, payload: { id, v: "a" }, score: 3 }));
        });
        const faults = (async () => {
          await sleep(150);
          await admin.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
          await sleep(150);
          await doomed.kill();
          await sleep(300);
          await admin.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
        })();
        await Promise.all([...cancels, faults]);
        // The killed ticks' runs come back once their leases ran out; the last child drains them.
        let stats = await tq.stats();
        for (let i = 0; i < 300; i++) {
          const s = stats.ordered.work;
          if (s && s.waiting === 0 && s.running === 0 && s.payloads === 0) break;
          await sleep(50);
          stats = await retried(() => tq.stats()).then((r) => (r === "NOT_FOUND" ? stats : r));
        }

        const runs = (await ledger.lrange(`${prefix}test:runs`, 0, -1)).map((t) => JSON.parse(t) as Run);
        const records = [];
        for (let cursor: string | null = null; ; ) {
          const page = await tq.jobs.list("cancelled", { name: "work", limit: 1_000, cursor });
          records.push(...page.jobs);
          cursor = page.cursor;
          if (!cursor) break;
        }
        const cancelledPayloads = new Set(
          records.flatMap((r) => (r.ordered?.payloads ?? []).map((p) => JSON.stringify(p))),
        );
        const late: string[] = [];
        const vanished: string[] = [];
        const lost: string[] = [];
        ids.forEach((id, k) => {
          const cancelledAt = k < CANCELLED ? returnedAt.get(id) : undefined;
          const ranWith = (v: string) => runs.filter((r) => r.payloads.some((p) => p.id === id && p.v === v));
          for (const v of ["b1", "b2"]) {
            const payload = JSON.stringify({ id, v });
            if (cancelledAt === undefined) {
              if (ranWith(v).length === 0) lost.push(payload);
              continue;
            }
            const after = ranWith(v).filter((r) => r.at > cancelledAt);
            if (after.length > 0)
              late.push(
                `${payload}: started ${after[0]!.at - cancelledAt} ms after its cancel returned (${JSON.stringify(answers.get(id))})`,
              );
            const before = ranWith(v).filter((r) => r.at <= cancelledAt);
            if (before.length === 0 && !cancelledPayloads.has(payload)) vanished.push(payload);
          }
          if (cancelledAt !== undefined) {
            const payload = JSON.stringify({ id, v: "a" });
            if (ranWith("a").length === 0 || cancelledPayloads.has(payload)) lost.push(payload);
          }
        });
        const froms = [...answers.values()].map((a) => (a === "NOT_FOUND" ? a : a.from));
        expect(late, "ran after the cancel returned").toEqual([]);
        expect(vanished, "neither ran before the cancel nor recorded cancelled").toEqual([]);
        expect(lost, "never ran").toEqual([]);
        expect(stats.ordered.work).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
        expect(froms, `the cancels met waiting ids: ${froms.join(" ")}`).toContain("scheduled");
        expect(froms, `the cancels met held runs: ${froms.join(" ")}`).toContain("running");
        expect(children.length).toBe(2);
      } finally {
        for (const c of children) await c.kill();
        opened.close();
        await deleteUnder(ledger, prefix);
        await deleteUnder(admin, prefix);
      }
    },
    30_000,
  );
});
