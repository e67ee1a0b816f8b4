// With real Ruby Sidekiq: its client feeds tickq. `push`,
// `perform_async`, `perform_in` and `push_bulk` jobs run in tickq with the
// args Ruby sent (nested hashes, unicode, 2**53+1, 1.0: Ruby reads them back
// byte for byte from the retry set), and jobs Ruby retries from the dead set
// (`DeadSet#retry`, `retry_all`, which leave retry_count -1) run again.
import { expect, it } from "vitest";
import type { JobContext } from "../../../../src/job/context.js";
import { sleep } from "../../../helpers/redis.js";
import { describeWithRuby, useInterop } from "./ruby.js";

const ARGS_RB =
  '[{"nested" => {"list" => [1, {"deep" => nil}], "t" => true}}, "héllo ☃ 😀 \\u2028", 2**53 + 1, 1.0, [], {}]';

interface Run {
  jid: string;
  args: unknown[];
  ctx: Pick<JobContext, "attempt" | "queue" | "payload">;
}

describeWithRuby("Ruby Sidekiq's client feeds tickq", () => {
  const w = useInterop();
  const recorder = (runs: Run[]) => (args: unknown[], ctx: JobContext) =>
    void runs.push({ jid: ctx.jid, args, ctx: { attempt: ctx.attempt, queue: ctx.queue, payload: ctx.payload } });

  it("push, perform_async, perform_in and push_bulk run in tickq with the args Ruby sent", async () => {
    const runs: Run[] = [];
    const tq = w.make({ RubyMade: recorder(runs) });
    const sent = await w.ruby<{ jids: string[]; later: string; argsJson: string }>(`
      class RubyMade; include Sidekiq::Worker; end
      args = ${ARGS_RB}
      jids = [Sidekiq::Client.push("class" => "RubyMade", "args" => args), RubyMade.perform_async(*args)]
      jids += Sidekiq::Client.push_bulk("class" => "RubyMade", "args" => [args, args])
      later = RubyMade.perform_in(1, *args)
      out(jids: jids, later: later, argsJson: Sidekiq.dump_json(args))`);
    expect(await tq.tick()).toMatchObject({ succeeded: 4, failed: 0 });
    expect(runs.map((r) => r.jid).sort()).toEqual([...sent.jids].sort());
    const expected = JSON.parse(sent.argsJson) as unknown[];
    for (const run of runs) expect(run.args).toEqual(expected);
    expect(runs[0]!.ctx).toMatchObject({ attempt: 1, queue: "default" });

    // perform_in: in `schedule` with no enqueued_at ("not yet enqueued"), until tickq moves it.
    const scheduled = await w.ruby<{ enqueuedAt: unknown }>(
      `out(enqueuedAt: Sidekiq::ScheduledSet.new.find_job("${sent.later}").enqueued_at)`,
    );
    expect(scheduled.enqueuedAt).toBeNull();
    await sleep(1_100);
    expect(await tq.tick()).toMatchObject({ scheduled: 1, succeeded: 1 });
    const late = runs.find((r) => r.jid === sent.later)!;
    expect(late.args).toEqual(expected);
    expect(late.ctx.payload.enqueued_at).toBeGreaterThan(Number(late.ctx.payload.created_at) + 1);
    expect(await tq.stats()).toMatchObject({ processed: 5, failed: 0, scheduled: 0, inflight: 0 });
  });

  it("a Ruby job tickq fails keeps Ruby's bytes: Ruby reads back 2**53+1 as an Integer and 1.0 as a Float", async () => {
    const tq = w.make({
      RubyMade: () => {
        throw new Error("no");
      },
    });
    await w.ruby(`Sidekiq::Client.push("class" => "RubyMade", "args" => ${ARGS_RB}); out(1)`);
    expect(await tq.tick()).toMatchObject({ failed: 1, retried: 1 });
    const back = await w.ruby<{ same: boolean; classes: string[] }>(`
      entry = Sidekiq::RetrySet.new.first
      out(same: entry.args == ${ARGS_RB}, classes: entry.args.map { |a| a.class.name })`);
    expect(back).toEqual({ same: true, classes: ["Hash", "String", "Integer", "Float", "Array", "Hash"] });
  });

  it("DeadSet#retry and retry_all from Ruby: tickq runs them again, as attempts after a failure", async () => {
    let fail = true;
    const runs: Run[] = [];
    const tq = w.make({
      Doomed: {
        perform: (args: unknown[], ctx) => {
          recorder(runs)(args, ctx);
          if (fail) throw new Error("down");
        },
        retry: false,
      },
    });
    const jids = await tq.enqueueBulk([1, 2, 3].map((n) => ({ name: "Doomed" as const, args: [n] })));
    expect(await tq.tick()).toMatchObject({ failed: 3, dead: 3 });
    const before = await w.ruby<{ counts: unknown[] }>(
      `out(counts: Sidekiq::DeadSet.new.map { |e| e["retry_count"] })`,
    );
    expect(before.counts).toEqual([0, 0, 0]);

    await w.ruby(`Sidekiq::DeadSet.new.find_job("${jids[0]}").retry; out(1)`);
    fail = false;
    runs.length = 0;
    expect(await tq.tick()).toMatchObject({ succeeded: 1, dead: 0 });
    expect(runs).toMatchObject([{ jid: jids[0], args: [1], ctx: { attempt: 2, payload: { retry_count: -1 } } }]);

    await w.ruby(`Sidekiq::DeadSet.new.retry_all; out(1)`);
    fail = true;
    runs.length = 0;
    expect(await tq.tick()).toMatchObject({ failed: 2, dead: 2 });
    expect(runs.map((r) => r.ctx.attempt)).toEqual([2, 2]);
    // Failed again: as Sidekiq counts it, retry_count -1 becomes 0, retried_at is set, failed_at kept.
    const after = await w.ruby<{ entries: { retry_count: number; failed_at: number; retried_at: number | null }[] }>(`
      out(entries: Sidekiq::DeadSet.new.map { |e| {retry_count: e["retry_count"], failed_at: e["failed_at"], retried_at: e["retried_at"]} })`);
    expect(after.entries).toHaveLength(2);
    for (const e of after.entries) {
      expect(e.retry_count).toBe(0);
      expect(e.retried_at).toBeGreaterThan(e.failed_at);
    }
  });
});
