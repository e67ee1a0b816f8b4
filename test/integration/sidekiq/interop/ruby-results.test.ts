// Results on Sidekiq's own keys: a Ruby job tickq keeps as history keeps
// Ruby's bytes, and a job tickq enqueues to await reads in Ruby as any job.
import { expect, it } from "vitest";
import { describeWithRuby, useInterop } from "./ruby.js";

const ARGS_RB = '[{"nested" => {"list" => [1, {"deep" => nil}]}}, "héllo ☃", 2**53 + 1, 1.0]';

describeWithRuby("results on Ruby Sidekiq's keys", () => {
  const w = useInterop();

  it("a Ruby job kept as history keeps Ruby's bytes after its result, and Ruby's stats count it once", async () => {
    const tq = w.make({ RubyMade: () => ({ ok: true }) }, { keepCompleted: { count: 10 } });
    const sent = await w.ruby<{ jid: string }>(
      `out(jid: Sidekiq::Client.push("class" => "RubyMade", "args" => ${ARGS_RB}))`,
    );
    const [queued] = await w.redis.lrange("queue:default", 0, -1);
    expect(await tq.tick()).toMatchObject({ succeeded: 1 });
    const [kept] = await w.redis.zrange("succeeded", "0", "-1");
    expect(kept!.endsWith(queued!.slice(1))).toBe(true);
    expect(await tq.jobs.result(sent.jid)).toMatchObject({ state: "succeeded", value: { ok: true } });
    const stats = await w.ruby<{ processed: number; failed: number }>(
      `s = Sidekiq::Stats.new; out(processed: s.processed, failed: s.failed)`,
    );
    expect(stats).toEqual({ processed: 1, failed: 0 });
  });

  it("a job enqueued to be awaited reads in Ruby as any job, its mark an extra field", async () => {
    const tq = w.make({ Waited: ([n]: [number]) => n * 2 });
    const waiting = tq.enqueueAndWait("Waited", [21], { timeoutMs: 10_000, kick: false });
    const seen = await (async () => {
      for (;;) {
        const read = await w.ruby<{ klass: string | null; args: unknown[] }>(
          `j = Sidekiq::Queue.new("default").first; out(klass: j&.klass, args: j&.args)`,
        );
        if (read.klass) return read;
      }
    })();
    expect(seen).toEqual({ klass: "Waited", args: [21] });
    await tq.tick();
    expect(await waiting).toBe(42);
  });
});
