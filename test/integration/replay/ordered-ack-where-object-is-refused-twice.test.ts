// A managed Redis may refuse commands a plain one runs: Upstash lists no OBJECT among the commands it
// supports. The ack of 16 ids or more of one name asks OBJECT ENCODING of the tick's token hash
// (lib/ordered/ack-ids.lua) only to choose how to read it; where OBJECT is refused it reads the hash
// whole, as for a listpack, and acks every id. A private redis-server with OBJECT renamed away stands
// in for such a Redis, over TCP and over the local REST server in front of it. The finish, run twice
// with the same arguments, answers alike and leaves the state of one run.
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import type { Harness } from "../../helpers/harness.js";
import { useRefusingRedis } from "../../helpers/refusing-redis.js";
import { uniquePrefix } from "../../helpers/redis.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, idsOf, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs, tickKeys } from "../../helpers/tick-calls.js";

const refusing = useRefusingRedis(["--rename-command", "OBJECT", ""], "no-object-redis-token");

describeOverAdapters(
  adapterCases.filter((c) => c.name !== "cluster"),
  "ordered acks where Redis refuses OBJECT, over $name",
  (adapterCase) => {
    it("a tick that took 20 ids of one name acks them all, run twice: none left held or running", async () => {
      const opened = refusing.open(adapterCase.name);
      const redis = new Redis(refusing.url());
      const h = { adapter: opened.adapter, redis, prefix: uniquePrefix(`${adapterCase.name}:no-object`) } as Harness;
      try {
        const { call, callTwice } = scriptCalls(h);
        const ids = Array.from({ length: 20 }, (_, i) => `id-${String(i).padStart(2, "0")}`);
        await call(
          protocol.ordered_enqueue,
          ORDERED_ENQUEUE_KEYS,
          orderedEnqueueArgs(
            "e",
            ids.map((id) => [id, `"${id}"`]),
          ),
        );
        const options = { tick: "t1", leaseMs: 5_000, ordered: ["idx"], batch: 40 };
        const begun = await call(protocol.begin, beginKeys(options), beginNamed(options));
        const items = idsOf(begun.ordered);
        expect(items.map((x) => x.id)).toEqual(ids);
        const outcomes = items.map((item) => ({ kind: "succeeded" as const, item }));
        await callTwice(
          protocol.finish,
          tickKeys("t1"),
          finishArgs({ tick: "t1", leaseMs: 5_000, call: 2, ordered: { names: ["idx"], outcomes } }),
        );
        expect(await redis.exists(`${h.prefix}oinproc:t1`)).toBe(0);
        expect(await redis.get(`${h.prefix}o:idx:running`)).toBe("0");
        expect(await redis.get(`${h.prefix}stat:processed`)).toBe("20");
      } finally {
        redis.disconnect();
        await opened.close();
      }
    });
  },
);
