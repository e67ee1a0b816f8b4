// A managed Redis or an ACL may refuse INFO inside scripts. A process's first tick asks Redis' eviction
// policy through INFO (begin.lua); where INFO is refused it learns none, and the tick runs its jobs as
// on any Redis. A private redis-server whose default user may not run INFO stands in for such a Redis, over TCP and
// over the local REST server in front of it; begin runs twice with the same arguments.
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import type { Harness } from "../../helpers/harness.js";
import { useRefusingRedis } from "../../helpers/refusing-redis.js";
import { uniquePrefix } from "../../helpers/redis.js";
import { scriptCalls } from "../../helpers/script-calls.js";

const refusing = useRefusingRedis(
  ["--user", "default", "on", "nopass", "~*", "&*", "+@all", "-info"],
  "no-info-redis-token",
);

describeOverAdapters(
  adapterCases.filter((c) => c.name !== "cluster"),
  "a Redis that refuses INFO in scripts, over $name",
  (adapterCase) => {
    const open = () => refusing.open(adapterCase.name);

    it("a process's first tick runs the jobs waiting, and stats answer", async () => {
      const opened = open();
      const ran: number[] = [];
      const tq = createTickq({
        redis: opened.adapter,
        prefix: uniquePrefix(`${adapterCase.name}:no-info`),
        jobs: { add: async ([n]: [number]) => void ran.push(n) },
      });
      try {
        await tq.enqueue("add", [1]);
        await tq.enqueue("add", [2]);
        const report = await tq.tick({ budgetMs: 2_000 });
        expect(report.succeeded).toBe(2);
        expect(ran.sort()).toEqual([1, 2]);
        expect((await tq.stats()).processed).toBe(2);
      } finally {
        await opened.close();
      }
    });

    it("begin asked for the eviction policy, run twice, answers alike with no policy", async () => {
      const opened = open();
      const redis = new Redis(refusing.url());
      const h = {
        adapter: opened.adapter,
        redis,
        prefix: uniquePrefix(`${adapterCase.name}:no-info-begin`),
      } as Harness;
      try {
        const { callTwice } = scriptCalls(h);
        const options = { tick: "t1", leaseMs: 5_000 };
        const { first } = await callTwice(protocol.begin, beginKeys(options), {
          ...beginNamed(options),
          askPolicy: true,
        });
        expect(first.policy).toBe("");
      } finally {
        redis.disconnect();
        await opened.close();
      }
    });
  },
);
