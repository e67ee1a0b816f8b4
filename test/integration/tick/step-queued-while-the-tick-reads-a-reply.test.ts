// Over TCP a tick keeps a second step in flight (pipeline.ts, lanes 'c' and
// 'd'): by the time the tick reads one step's reply and runs its jobs, the
// next step is already written, so Redis runs it meanwhile (queued behind
// the first when Redis is the slower side) and neither waits for the other.
// With one step in flight at a time, the next went only after the reply's
// first job ran: Redis sat idle from each reply until the tick's next call
// arrived (bench/step-overlap.ts measures the cost). Each step still fetches
// a whole batch: no more calls a job than before.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { adapterCases, speaksTcp } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import * as protocol from "../../../src/protocol/index.js";
import type { RedisAdapter, RedisReply } from "../../../src/redis/types.js";

const BATCH = 10;
const JOBS = 200;
const stepSha = createHash("sha1").update(protocol.step.script.text).digest("hex");

describe.each(adapterCases.filter((c) => speaksTcp(c.name)))("steps over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "step-queued");

  it("have the next one sent before a reply's jobs run, two in flight at most, each fetching a whole batch", async () => {
    let ran = 0;
    let sent = 0;
    let inFlight = 0;
    let most = 0;
    // The steps sent when each batch's first job ran (batch 0 came with begin, batch k with step k).
    const sentAtBatch: number[] = [];
    const base = h.adapter;
    const watch = (reply: Promise<RedisReply>) => {
      sent++;
      most = Math.max(most, ++inFlight);
      return reply.then(
        (value) => {
          inFlight--;
          return value;
        },
        (error: unknown) => {
          inFlight--;
          // Redis did not know the script: the same step goes again by EVAL.
          if (String(error).includes("NOSCRIPT")) sent--;
          throw error;
        },
      );
    };
    // A step goes by EVAL once Redis does not know its script (another file may have flushed them).
    const watched: RedisAdapter = {
      ...base,
      evalsha: (sha, keys, args) =>
        (sha === stepSha ? watch : (r: Promise<RedisReply>) => r)(base.evalsha(sha, keys, args)),
      eval: (script, keys, args) =>
        (script === protocol.step.script.text ? watch : (r: Promise<RedisReply>) => r)(base.eval(script, keys, args)),
    };
    const noop = () => {
      if (ran++ % BATCH === 0) sentAtBatch.push(sent);
    };
    const tq = h.make({ noop }, { redis: watched });
    await tq.enqueueBulk(Array.from({ length: JOBS }, (_, i) => ({ name: "noop" as const, args: [i] })));
    const report = await tq.tick({ batch: BATCH, concurrency: BATCH });
    expect(report).toMatchObject({ fetched: JOBS, succeeded: JOBS });
    expect(ran).toBe(JOBS);
    // At most two batches fetched and not started: two steps in flight at most.
    expect(most).toBe(2);
    // One a batch, and the last ones that find the queue empty.
    expect(sent).toBeLessThanOrEqual(JOBS / BATCH + 2);
    // Batch k's jobs ran with step k + 1 already sent.
    for (let k = 1; k < JOBS / BATCH; k++) expect(sentAtBatch[k], `batch ${k}`).toBeGreaterThanOrEqual(k + 1);
  });
});
