// A whole tick over HTTP, two steps in flight (lib/tick/replay-call.lua's
// lanes), whose first lane a step is held on its way to Redis until a lane
// b step sent after it has run and answered, as one slow socket among quick
// ones does. Lane b's step then fetched the high queue's jobs and lane a's,
// run after it, the low queue's: under strict order every high job still
// starts before any low one, though lane a was sent first.
import { expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases, describeOverAdapters, speaksTcp } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const http = adapterCases.filter((c) => !speaksTcp(c.name));
const BATCH = 7;
const N = 10 * BATCH;

describeOverAdapters(http, "lane steps answered out of run order over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "lanes-order");

  it("the jobs of the step Redis ran first start first, though the other step was sent first", async () => {
    let holding = 0;
    let bAnswered = 0;
    // Lane b steps answered while a lane a step sent before them was held: each ran first.
    let overtaken = 0;
    const inner = h.adapter;
    const redis: RedisAdapter = {
      ...inner,
      evalsha: async (sha, keys, args) => {
        const lane = /^\d+([ab])\//.exec(args[5] ?? "")?.[1];
        if (lane === "a") {
          // Held before Redis sees it until a lane b step sent after it has been answered, or a while
          // passed (the first ones: until lane a's slow round trips make the tick send lane b beside it).
          holding++;
          const seen = bAnswered;
          for (let i = 0; i < 40 && bAnswered === seen; i++) await new Promise((r) => setTimeout(r, 5));
          holding--;
        }
        const reply = await inner.evalsha(sha, keys, args);
        if (lane === "b") {
          bAnswered++;
          if (holding > 0) overtaken++;
        }
        return reply;
      },
    };
    const started: string[] = [];
    const tq = createTickq({
      redis,
      prefix: h.prefix,
      queues: ["high", "low"],
      jobs: {
        q: async (args: unknown[], ctx) => {
          started.push(`${ctx.queue} ${args[0]}`);
          await new Promise((r) => setTimeout(r, 5));
        },
      },
    });
    const jobs = (queue: string) => Array.from({ length: N }, (_, i) => ({ name: "q" as const, args: [i], queue }));
    await tq.enqueueBulk([...jobs("low"), ...jobs("high")]);
    await tq.tick({ batch: BATCH, concurrency: 4 * BATCH, budgetMs: 20_000 });
    // The race happened: a lane b step reached Redis, and was answered, before a lane a step sent earlier.
    expect(overtaken).toBeGreaterThan(0);
    // Strict order, each queue first in first out: a step's jobs that started before those of a step
    // Redis ran earlier would show here.
    const order = (queue: string) => Array.from({ length: N }, (_, i) => `${queue} ${i}`);
    expect(started).toEqual([...order("high"), ...order("low")]);
  });
});
