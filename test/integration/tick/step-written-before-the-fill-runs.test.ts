// Over TCP a tick of jobs that return at once writes its next step to Redis
// after the fill's first job and before the rest run (pipeline.ts lowWater),
// so Redis works on the step while the tick runs them. A step that awaited
// anything before its write (an ack's naming by reference, which most acks
// need not wait for) went out only once every job of the fill had run: the
// tick and Redis took turns (bench/step-overlap.ts measures the cost).
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { adapterCases, speaksTcp } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import * as protocol from "../../../src/protocol/index.js";
import type { RedisAdapter } from "../../../src/redis/types.js";

const BATCH = 10;
const JOBS = 200;
const stepSha = createHash("sha1").update(protocol.step.script.text).digest("hex");

describe.each(adapterCases.filter((c) => speaksTcp(c.name)))("a step call over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "step-written");

  it("goes out after the fill's first job, before the rest of its jobs run", async () => {
    let ran = 0;
    // The jobs run when each step was handed to the adapter (ioredis writes it to the socket there).
    const ranAtStep: number[] = [];
    const base = h.adapter;
    const watched: RedisAdapter = {
      ...base,
      evalsha: (sha, keys, args) => {
        if (sha === stepSha) ranAtStep.push(ran);
        return base.evalsha(sha, keys, args);
      },
    };
    const tq = h.make({ noop: () => void ran++ }, { redis: watched });
    await tq.enqueueBulk(Array.from({ length: JOBS }, (_, i) => ({ name: "noop" as const, args: [i] })));
    const report = await tq.tick({ batch: BATCH, concurrency: BATCH });
    expect(report).toMatchObject({ fetched: JOBS, succeeded: JOBS });
    // The first fill's step waits to learn that its jobs return at once (pipeline.ts atOnce).
    const fetching = ranAtStep.filter((n) => n < JOBS);
    expect(fetching.length).toBeGreaterThanOrEqual(JOBS / BATCH - 2);
    // Each went with its fill's first job run: one more than a whole number of batches.
    for (const n of fetching.slice(1)) expect(n % BATCH).toBe(1);
  });
});
