// With a real Sidekiq server (`sidekiq -r ./worker.rb`, stopped by
// its PID): jobs tickq enqueues, now or with delayMs, run in Ruby with the
// args tickq sent; a class only Ruby knows, taken by a tick from a shared
// queue, is retried (not lost) and Sidekiq then runs it; and the same job
// failed by Sidekiq and by tickq leaves the same JSON fields and types in
// the retry and dead sets (field by field; values too, but for ids, times,
// queues and the error's class and backtrace frames).
import { afterAll, expect, it } from "vitest";
import { describeWithRuby, eventually, startSidekiq, useInterop, type SidekiqServer } from "./ruby.js";

interface Ran {
  class: string;
  jid: string;
  args: unknown[];
  args_json: string;
}

class InteropError extends Error {
  override name = "InteropError";
}

/** Ruby's Array#inspect for the plain args used here: [5, "x"]. */
const inspect = (args: unknown[]) => `[${args.map((a) => JSON.stringify(a)).join(", ")}]`;

describeWithRuby("a real Sidekiq server beside tickq", () => {
  const w = useInterop();
  let server: SidekiqServer | undefined;
  const ensureServer = async () => (server ??= await startSidekiq(w, ["default", "low"]));
  afterAll(async () => server?.stop());
  const ran = async () => (await w.redis.lrange("interop:ran", 0, -1)).map((r) => JSON.parse(r) as Ran);

  it("a class only Ruby knows, taken by a tick from a shared queue, is retried, then Sidekiq runs it", async () => {
    const tq = w.make({ TsOnly: () => {} });
    const jid = (
      await w.ruby<{ jid: string }>(`out(jid: Sidekiq::Client.push("class" => "RubyOnly", "args" => [1, "x"]))`)
    ).jid;
    expect(await tq.tick()).toMatchObject({ failed: 1, retried: 1, dead: 0 });
    const [entry] = await w.redis.zrange("retry", "0", "-1");
    expect(JSON.parse(entry!)).toMatchObject({
      jid,
      class: "RubyOnly",
      error_class: "TickqUnknownJob",
      retry_count: 0,
      queue: "default",
    });
    await w.redis.zadd("retry", "0", entry!); // its backoff has passed
    await ensureServer();
    const run = await eventually(async () => (await ran()).find((r) => r.jid === jid));
    expect(run).toMatchObject({ class: "RubyOnly", args: [1, "x"] });
    expect(await tq.stats()).toMatchObject({ retry: 0, dead: 0, inflight: 0 });
  });

  it("jobs tickq enqueues, now, later (delayMs) and in bulk, run in Sidekiq with tickq's args", async () => {
    const tq = w.make({
      RubyEcho: () => {
        throw new Error("Ruby runs these");
      },
    });
    const args = [{ nested: { list: [1, { deep: null }], t: true } }, "héllo ☃ 😀", 9_007_199_254_740_991, 1.5, [], {}];
    const now = await tq.enqueue("RubyEcho", args);
    const later = await tq.enqueue("RubyEcho", args, { delayMs: 1_500 });
    const bulk = await tq.enqueueBulk([
      { name: "RubyEcho", args: ["low one"], queue: "low" },
      { name: "RubyEcho", args: [2] },
    ]);
    await ensureServer();
    const runs = await eventually(async () => {
      const all = await ran();
      return [now, later, ...bulk].every((jid) => all.some((r) => r.jid === jid)) ? all : undefined;
    });
    const byJid = new Map(runs.map((r) => [r.jid, r]));
    expect(byJid.get(now)!.args_json).toBe(JSON.stringify(args));
    expect(byJid.get(later)!.args).toEqual(args);
    expect(byJid.get(bulk[0]!)!.args).toEqual(["low one"]);
    expect(byJid.get(bulk[1]!)!.args).toEqual([2]);
  });

  it("the same job failed by Sidekiq and by tickq: the same fields and types, in the retry set and then the dead set", async () => {
    const tq = w.make(
      {
        AlwaysFails: (args: unknown[]) => {
          throw new InteropError(`kaboom ${inspect(args)}`);
        },
      },
      { queues: ["tsq", "tslow"] },
    );
    const push = (queue: string, retryQueue: string) =>
      `Sidekiq::Client.push("class" => "AlwaysFails", "args" => [5, "x"], "queue" => "${queue}", "retry" => 1, "backtrace" => 2, "retry_queue" => "${retryQueue}")`;
    const { bySidekiq, byTickq } = await w.ruby<{ bySidekiq: string; byTickq: string }>(
      `out(bySidekiq: ${push("default", "low")}, byTickq: ${push("tsq", "tslow")})`,
    );
    await ensureServer();
    const compare = async (set: "RetrySet" | "DeadSet") => {
      await eventually(async () =>
        (await w.ruby<boolean>(`out(!Sidekiq::${set}.new.find_job("${bySidekiq}").nil?)`)) ? true : undefined,
      );
      await eventually(async () => {
        await tq.tick();
        return (await w.ruby<boolean>(`out(!Sidekiq::${set}.new.find_job("${byTickq}").nil?)`)) ? true : undefined;
      });
      return w.ruby<
        Record<
          "sidekiq" | "tickq",
          { fields: Record<string, unknown>; types: Record<string, string>; backtrace: string[] }
        >
      >(`
        show = ->(jid) {
          e = Sidekiq::${set}.new.find_job(jid)
          fields = JSON.parse(e.value)
          {fields: fields, types: fields.transform_values { |v| v.class.name }, backtrace: e.error_backtrace}
        }
        out(sidekiq: show["${bySidekiq}"], tickq: show["${byTickq}"])`);
    };
    const same = (got: Awaited<ReturnType<typeof compare>>, count: number) => {
      const { sidekiq, tickq } = got;
      expect(tickq.types).toEqual(sidekiq.types);
      const differ = [
        "jid",
        "queue",
        "retry_queue",
        "created_at",
        "enqueued_at",
        "failed_at",
        "retried_at",
        "error_backtrace",
        "error_class",
      ];
      const values = (f: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(f).filter(([k]) => !differ.includes(k)));
      expect(values(tickq.fields)).toEqual(values(sidekiq.fields));
      expect(tickq.fields).toMatchObject({
        retry_count: count,
        error_message: 'kaboom [5, "x"]',
        error_class: "InteropError",
        queue: "tslow",
      });
      expect(sidekiq.fields).toMatchObject({ queue: "low" });
      expect(tickq.backtrace).toHaveLength(2);
      expect(sidekiq.backtrace).toHaveLength(2);
      for (const line of [...tickq.backtrace, ...sidekiq.backtrace]) expect(typeof line).toBe("string");
    };

    same(await compare("RetrySet"), 0);
    // Both retries come due: Sidekiq's poller and tickq's begin move them, and both fail for good.
    for (const jid of [bySidekiq, byTickq])
      await w.ruby(`Sidekiq::RetrySet.new.find_job("${jid}").reschedule(Time.now.to_f - 1); out(1)`);
    const dead = await compare("DeadSet");
    same(dead, 1);
    expect(Object.keys(dead.tickq.fields).sort()).toEqual(Object.keys(dead.sidekiq.fields).sort());
    expect(dead.tickq.fields.retried_at).toBeGreaterThanOrEqual(dead.tickq.fields.failed_at as number);
  });
});
