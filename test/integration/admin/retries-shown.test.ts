// A job stored without `retry` (pushed by another client, as Sidekiq's push
// may) takes its definition's when it fails (tick/passes/execute.ts). The
// jobs API says so in `retries`, rather than leaving `job.retry: false` to
// read as "never retried".
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("the retries tq.jobs shows, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "retries-shown");

  it("names the definition's limit for a job with no retry, and the job's own otherwise", async () => {
    const tq = h.make({ five: { perform: () => {}, retry: 5 }, plain: () => {} }, { maxRetries: 9 });
    const bare = (jid: string, name: string) =>
      JSON.stringify({ class: name, args: [], jid, queue: "default", created_at: 1, enqueued_at: 1 });
    await h.redis.sadd(`${h.prefix}queues`, "default");
    await h.redis.lpush(`${h.prefix}queue:default`, bare("aaaaaaaaaaaaaaaaaaaaaaaa", "five"));
    await h.redis.lpush(`${h.prefix}queue:default`, bare("bbbbbbbbbbbbbbbbbbbbbbbb", "plain"));
    await h.redis.lpush(`${h.prefix}queue:default`, bare("cccccccccccccccccccccccc", "nobody"));
    const own = await tq.enqueue("five", [], { retry: 2 });
    const never = await tq.enqueue("plain", [], { retry: false });

    expect((await tq.jobs.find("aaaaaaaaaaaaaaaaaaaaaaaa"))?.retries).toEqual({ limit: 5, from: "definition" });
    expect((await tq.jobs.find("bbbbbbbbbbbbbbbbbbbbbbbb"))?.retries).toEqual({ limit: 9, from: "definition" });
    expect((await tq.jobs.find(own))?.retries).toEqual({ limit: 2, from: "job" });
    expect((await tq.jobs.find(never))?.retries).toEqual({ limit: 0, from: "job" });
    // No definition of its name here: nothing to say.
    expect((await tq.jobs.find("cccccccccccccccccccccccc"))?.retries).toBeUndefined();
    const page = await tq.jobs.list("queued", { queue: "default" });
    const listed = Object.fromEntries(page.jobs.map((j) => [j.jid, j.retries]));
    expect(listed.aaaaaaaaaaaaaaaaaaaaaaaa).toEqual({ limit: 5, from: "definition" });
    expect(listed[own]).toEqual({ limit: 2, from: "job" });
  });
});
