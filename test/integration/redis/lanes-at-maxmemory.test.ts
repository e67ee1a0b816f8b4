// Lane steps at maxmemory (noeviction), on a private redis-server: step is
// allow-oom, so a lane step still acks, fetches and keeps its reply (with
// its jobs' SHA-1s, lib/tick/replay-call.lua) while Redis is full, and its
// replay, after the other lane fetched in front of its jobs, answers them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { onlySelected } from "../../helpers/adapter-names.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { startFullRedis, type FullRedis } from "../../helpers/full-redis.js";
import type { Harness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

let full: FullRedis;
beforeAll(async () => {
  full = await startFullRedis();
});
afterAll(async () => {
  await full?.stop();
});

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
const PING = JSON.stringify({ class: "Ping", args: [], queue: "default" });
const KEYS = tickKeys("t1");
const jobsOf = (reply: { fetched: readonly { jobs: readonly string[] }[] }) => reply.fetched.flatMap((g) => g.jobs);

describe.each(onlySelected([{ name: "ioredis" }, { name: "rest" }]))(
  "lane steps at maxmemory over $name",
  ({ name }) => {
    it("a lane step acks, fetches and keeps its reply while Redis is full; its replay answers its own jobs", async () => {
      await full.unpin();
      await full.admin.flushall(); // the private server of this file only
      const opened = full.open(name);
      const h = { adapter: opened.adapter, redis: full.admin, prefix: "lanesmem:" } as Harness;
      const { call, callTwice } = scriptCalls(h);
      const step = (header: string, batch: number, acked: string[] = []) =>
        stepArgs({ tick: "t1", leaseMs: 5_000, call: header, batch, acks: rawAcks({ default: acked }) });
      try {
        await h.redis.rpush("lanesmem:queue:default", ...[PING, job(2), job(3), PING, job(5), job(6)].reverse());
        const options = { tick: "t1", leaseMs: 5_000, batch: 1 };
        await call(protocol.begin, beginKeys(options), beginNamed(options));
        // Loads step's script before Redis is pinned full.
        await call(protocol.step, KEYS, step("2a/0/0", 0));
        await full.pinFull();
        const a = await call(protocol.step, KEYS, step("3a/0/0", 2, [PING]));
        expect(jobsOf(a)).toEqual([job(2), job(3)]);
        const b = await call(protocol.step, KEYS, step("4b/0/0", 3));
        expect(jobsOf(b)).toEqual([PING, job(5), job(6)]);
        expect(await h.redis.hget("lanesmem:tick:t1", "seqa")).toBe("3");
        const { first: again } = await callTwice(protocol.step, KEYS, step("3a/0/0", 2, [PING]));
        expect(again).toEqual(a);
        expect(await h.redis.get("lanesmem:stat:processed")).toBe("1");
      } finally {
        await full.unpin();
        await opened.close();
      }
    });
  },
);
