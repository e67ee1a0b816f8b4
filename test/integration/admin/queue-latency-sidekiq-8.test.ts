// A queue's latency reads its oldest job's enqueued_at, which Sidekiq 8 writes
// as integer epoch ms and Sidekiq 7 as float epoch seconds
// (lib/queues/measure-latency.lua): both read as the same age.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("queue latency of a Sidekiq 8 job over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "latency-sk8");

  it("reads enqueued_at in ms as Sidekiq 7's seconds", async () => {
    const tq = h.make({ j: () => {} });
    const [sec, micro] = (await h.redis.time()) as unknown as [string, string];
    const nowMs = Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
    const pushedAt = nowMs - 60_000;
    const job = (queue: string, enqueuedAt: number) =>
      JSON.stringify({
        class: "j",
        args: [],
        jid: `${queue}jid0000000000000`,
        queue,
        created_at: enqueuedAt,
        enqueued_at: enqueuedAt,
      });
    await h.redis.sadd(`${h.prefix}queues`, "eight", "seven");
    await h.redis.lpush(`${h.prefix}queue:eight`, job("eight", pushedAt));
    await h.redis.lpush(`${h.prefix}queue:seven`, job("seven", pushedAt / 1000));
    const queues = Object.fromEntries((await tq.queues.list()).map((q) => [q.name, q.latencyMs]));
    for (const name of ["eight", "seven"]) {
      expect(queues[name]).toBeGreaterThanOrEqual(60_000);
      expect(queues[name]).toBeLessThan(70_000);
    }
  });
});
