import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const fail = {
  perform: () => {
    throw new Error("boom");
  },
  retry: false,
} as const;

describe.each(adapterCases)("tq.jobs.find over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "find");

  it("finds a job in every state, with where it is", async () => {
    const tq = h.make({
      ok: () => {},
      later: () => {},
      fail,
      flaky: {
        perform: () => {
          throw new Error("again");
        },
        backoff: () => 3_600,
      },
    });
    const queued = await tq.enqueue("ok", [1], { queue: "mail" });
    const behind = await tq.enqueue("ok", [2], { queue: "mail" });
    const scheduled = await tq.enqueue("later", [], { delayMs: 60_000 });
    const [dead, retry] = await tq.enqueueBulk([
      { name: "fail", args: [] },
      { name: "flaky", args: [] },
    ]);
    await tq.tick(); // serves "default" only: fail → dead, flaky → retry

    expect(await tq.jobs.find(queued)).toMatchObject({
      state: "queued",
      queue: "mail",
      name: "ok",
      jid: queued,
      position: 0,
      job: { args: [1] },
    });
    expect(await tq.jobs.find(behind)).toMatchObject({ state: "queued", position: 1 });
    const s = await tq.jobs.find(scheduled);
    expect(s).toMatchObject({ state: "scheduled", queue: "default", name: "later" });
    expect(s!.at).toBeGreaterThan(Date.now() + 50_000);
    expect(await tq.jobs.find(dead!)).toMatchObject({
      state: "dead",
      job: { error_class: "Error", error_message: "boom" },
    });
    expect(await tq.jobs.find(retry!)).toMatchObject({
      state: "retry",
      job: { retry_count: 0, error_message: "again" },
    });
    expect(await tq.jobs.find("nope")).toBeNull();
    expect(JSON.parse((await tq.jobs.find(dead!))!.raw)).toMatchObject({ jid: dead });
  });

  it("finds a job in process, with its tick", async () => {
    let seen: unknown;
    const tq = h.make({
      slow: async (_args: [], ctx) => {
        seen = await tq.jobs.find(ctx.jid);
      },
    });
    const jid = await tq.enqueue("slow", []);
    const report = await tq.tick();
    expect(seen).toMatchObject({ state: "running", jid, queue: "default", tick: report.tickId, tickAlive: true });
  });

  it("finds by the jid field, not by text elsewhere in the job", async () => {
    const tq = h.make({ ok: () => {} });
    await tq.enqueue("ok", ["abc123"], { jid: "other" });
    expect(await tq.jobs.find("abc123")).toBeNull();
    expect(await tq.jobs.find("other")).toMatchObject({ jid: "other", job: { args: ["abc123"] } });
  });

  it("looks through large sets in bounded stretches", async () => {
    const tq = h.make({ ok: () => {} });
    const filler = Array.from({ length: 45_000 }, (_, i) =>
      JSON.stringify({ class: "ok", args: [i], jid: `f${i}`, queue: "default", retry: true }),
    );
    for (let i = 0; i < filler.length; i += 5_000) {
      await h.redis.zadd(`${h.prefix}dead`, ...filler.slice(i, i + 5_000).flatMap((j, k) => [i + k, j]));
      await h.redis.lpush(`${h.prefix}queue:big`, ...filler.slice(i, i + 5_000));
    }
    await h.redis.sadd(`${h.prefix}queues`, "big");
    const last = await tq.enqueue("ok", [], { queue: "zzz" });
    expect(await tq.jobs.find(last)).toMatchObject({ state: "queued", queue: "zzz" });
    expect(await tq.jobs.find("f44999")).toMatchObject({ state: "dead" });
    expect(await tq.jobs.find("f0")).toMatchObject({ state: "dead", at: 0 });
  });
});
