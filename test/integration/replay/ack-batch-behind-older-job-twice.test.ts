// An ack of a whole fetched batch, all succeeded, while a job fetched before it still runs and a
// job fetched after it was already acked: the batch's jobs are settled, run twice once, and the
// older job keeps its place in the tick's list. The list's length then equals the count of jobs
// pushed since the batch's place (docs/benchmarks.md, "The ack's tail read"): a check of the
// length against that count alone would take the older job with the batch's nine oldest, acking
// a job that has not run. This holds the case for any ack that names a batch by its place.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { ENQUEUE_KEYS, enqueueArgs, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });

describe.each(adapterCases)(
  "a whole batch acked behind an older job still running, run twice, over $name",
  (adapterCase) => {
    const h = useHarness(adapterCase, "replay");
    const { call, callTwice } = scriptCalls(h);
    const inproc = () => h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);
    const step = (call: number, batch: number, acked: string[]) =>
      stepArgs({ tick: "t1", leaseMs: LEASE, call, batch, acks: rawAcks(acked.length > 0 ? { default: acked } : {}) });

    it("settles the batch once and keeps the older job listed, though the list's length matches the jobs pushed since the batch", async () => {
      await call(
        protocol.enqueue,
        ENQUEUE_KEYS,
        enqueueArgs(
          "e1",
          Array.from({ length: 40 }, (_, n) => ({ job: job(n) })),
        ),
      );
      // The jobs as stored (enqueue stamps them), oldest first.
      const all = (await h.redis.lrange(`${h.prefix}queue:default`, 0, -1)).reverse();
      // Begin fetches jobs 0-9; step 2 acks 1-9 (job 0 still runs) and fetches 10-19 (the batch);
      // step 3 fetches 20-29; step 4 acks job 20 alone and fetches nothing.
      await call(
        protocol.begin,
        beginKeys({ tick: "t1", leaseMs: LEASE }),
        beginNamed({ tick: "t1", leaseMs: LEASE, batch: 10 }),
      );
      expect((await inproc()).reverse()).toEqual(all.slice(0, 10));
      await call(protocol.step, tickKeys("t1"), step(2, 10, all.slice(1, 10)));
      await call(protocol.step, tickKeys("t1"), step(3, 10, []));
      await call(protocol.step, tickKeys("t1"), step(4, 0, [all[20]!]));
      const before = await inproc();
      // 30 jobs pushed, the batch at place 10: 20 listed, as many as pushed since the batch.
      expect(before).toHaveLength(30 - 10);
      expect(before.at(-1)).toBe(all[0]);

      const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step(5, 0, all.slice(10, 20)));
      expect(first.missed).toEqual([]);
      expect(after["stat:processed"]).toBe(String(9 + 1 + 10));
      expect(after["inproc:t1:default"]).toEqual([...all.slice(21, 30).reverse(), all[0]]);
    });
  },
);
