// given_up.lua at maxmemory (noeviction), on a private redis-server: it is allow-oom, and its fence
// (lib/tick/given-up-fence.lua, a new key) is written while Redis refuses every other write that grows
// memory. Were the fence refused while the question still answered leaseHeld 1, finish would make the
// acks of a never-ran step that, arriving once the lease lapsed, would make them again (with jobs of
// the same text, taking a copy nobody ran). Asked twice, the same answer and the same fence. Finish,
// full too, raises the fence past itself: a copy of it past the lease takes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { onlySelected } from "../../helpers/adapter-names.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { startFullRedis, type FullRedis } from "../../helpers/full-redis.js";
import type { Harness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

let full: FullRedis;
beforeAll(async () => {
  full = await startFullRedis();
});
afterAll(async () => {
  await full?.stop();
});

const LEASE = 5_000;
const COPIES = 4;
const text = JSON.stringify({ class: "x", args: [0], queue: "default", retry: true });

describe.each(onlySelected([{ name: "ioredis" }, { name: "rest" }]))(
  "the given-up fence at maxmemory over $name",
  ({ name }) => {
    it("given_up writes its fence while Redis is full; the never-ran step, late past the lease, takes no copy", async () => {
      await full.unpin();
      await full.admin.flushall(); // the private server of this file only
      const opened = full.open(name);
      const prefix = "gaveupmem:";
      const h = { adapter: opened.adapter, redis: full.admin, prefix } as Harness;
      const { call, callTwice } = scriptCalls(h);
      const listed = () => h.redis.llen(`${prefix}inproc:t1:default`);
      try {
        await h.redis.sadd(`${prefix}queues`, "default");
        await h.redis.rpush(`${prefix}queue:default`, ...Array.from({ length: COPIES }, () => text));
        const options = { tick: "t1", leaseMs: LEASE, batch: 1 };
        await call(protocol.begin, beginKeys(options), beginNamed(options));
        // Loads the scripts before Redis is pinned full: given_up on a tick with no lease writes nothing.
        await call(protocol.given_up, tickKeys("t0"), { tickId: "t0", call: "2", steps: ["1a"] });
        await call(protocol.finish, tickKeys("t0"), finishArgs({ tick: "t0", leaseMs: LEASE, call: 3 }));
        await call(protocol.step, tickKeys("t1"), stepArgs({ tick: "t1", leaseMs: LEASE, call: "2a", batch: 1 }));
        await full.pinFull();
        const { first } = await callTwice(protocol.given_up, tickKeys("t1"), {
          tickId: "t1",
          call: "4",
          steps: ["2a", "3b"],
        });
        expect(first).toMatchObject({ leaseHeld: true, ran: [1, 0] });
        expect(await h.redis.get(`${prefix}gaveup:t1`)).toBe("4");
        const finish = finishArgs({ tick: "t1", leaseMs: LEASE, call: 5, acks: rawAcks({ default: [text] }) });
        await call(protocol.finish, tickKeys("t1"), finish);
        expect(await listed()).toBe(1);
        // Finish raised the fence past itself while full (allow-oom), so its copy past the lease takes nothing.
        expect(await h.redis.get(`${prefix}gaveup:t1`)).toBe("6");
        await h.redis.del(`${prefix}tick:t1`);
        expect(await call(protocol.finish, tickKeys("t1"), finish)).toMatchObject({ leaseGone: 1 });
        expect(await listed()).toBe(1);
        const late = await call(
          protocol.step,
          tickKeys("t1"),
          stepArgs({ tick: "t1", leaseMs: LEASE, call: "3b", batch: 1, acks: rawAcks({ default: [text] }) }),
        );
        expect(late.leaseHeld).toBe(false);
        expect(await listed()).toBe(1);
      } finally {
        await full.unpin();
        await opened.close();
      }
    });
  },
);
