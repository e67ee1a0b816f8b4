// With real Ruby Sidekiq: its API reads tickq's state. After tickq
// processed, failed and killed jobs, Sidekiq::Stats, Queue#latency, RetrySet,
// DeadSet and ScheduledSet read the numbers and fields tickq reports; while
// a tick runs, ProcessSet and WorkSet show it and its job; a finished tick,
// and one SIGKILLed mid-run, vanish from them.
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { sleep } from "../../../helpers/redis.js";
import { describeWithRuby, eventually, useInterop } from "./ruby.js";

// One process: the tsx CLI would run the script in a grandchild that SIGKILL misses.
const CHILD = ["--import", "tsx", "test/fixtures/tick-child.ts"];

interface Views {
  processes: {
    identity: string;
    hostname: string;
    busy: number;
    beat: number;
    queues: string[];
    labels: string[];
    concurrency: number;
  }[];
  work: { process: string; queue: string; jid: string; klass: string; args: unknown[]; runAt: number }[];
  size: number;
  workers: number;
}

const VIEWS_RB = `
  ps = Sidekiq::ProcessSet.new.map { |p| {identity: p.identity, hostname: p["hostname"], busy: p["busy"], beat: p["beat"], queues: p["queues"], labels: p.labels, concurrency: p["concurrency"]} }
  work = Sidekiq::WorkSet.new.map { |pr, _tid, w| {process: pr, queue: w["queue"], jid: w["payload"]["jid"], klass: w["payload"]["class"], args: w["payload"]["args"], runAt: w["run_at"]} }
  stats = Sidekiq::Stats.new
  out(processes: ps, work: work, size: stats.processes_size, workers: stats.workers_size)`;

describeWithRuby("Ruby Sidekiq's API reads tickq", () => {
  const w = useInterop();

  it("Stats, Queue#latency, RetrySet, DeadSet and ScheduledSet read what tickq processed, failed and killed", async () => {
    const tq = w.make(
      {
        ok: () => {},
        flaky: {
          perform: () => {
            throw new TypeError("flaked");
          },
          retry: 3,
        },
        doomed: {
          perform: () => {
            throw new Error("gone");
          },
          retry: false,
        },
      },
      // "low" is served by no tick here on purpose: a job waits in it for Queue#latency to read.
      { queues: ["default"], maxResurrections: 1, allowUndeclaredQueues: true },
    );
    await tq.enqueueBulk([
      { name: "ok", args: [1] },
      { name: "ok", args: [2] },
      { name: "flaky", args: ["f"] },
      { name: "doomed", args: ["d"] },
    ]);
    const later = await tq.enqueue("ok", ["later"], { delayMs: 3_600_000 });
    const waiting = await tq.enqueue("ok", ["waiting"], { queue: "low" });
    // A job whose tick died while running it alone (SIGKILL, out of memory): resurrected once, then dead as poison.
    const killed = '{"class":"ok","args":["killed"],"jid":"killed1","queue":"default","retry":true}';
    await w.redis.hset("ticks", "deadtick", "0 1000 default");
    await w.redis.lpush("inproc:deadtick:default", killed);
    await w.redis.hset("solo", "deadtick", `p${killed}`);
    expect(await tq.tick()).toMatchObject({ resurrected: 1, succeeded: 2, failed: 2, retried: 1, dead: 2 });

    const mine = await tq.stats();
    const ruby = await w.ruby<Record<string, unknown>>(`
      s = Sidekiq::Stats.new
      re = Sidekiq::RetrySet.new.first
      dead = Sidekiq::DeadSet.new.map { |e| [e.jid, {klass: e.klass, error_class: e["error_class"], error_message: e["error_message"], retry_count: e["retry_count"]}] }.to_h
      sched = Sidekiq::ScheduledSet.new.first
      out(processed: s.processed, failed: s.failed, scheduledSize: s.scheduled_size, retrySize: s.retry_size, deadSize: s.dead_size,
          enqueued: s.enqueued, queues: s.queues, processes: s.processes_size, workers: s.workers_size,
          latency: Sidekiq::Queue.new("low").latency, lowSize: Sidekiq::Queue.new("low").size, lowJid: Sidekiq::Queue.new("low").first.jid,
          retryEntry: {klass: re.klass, args: re.args, queue: re.queue, error_class: re["error_class"], error_message: re["error_message"],
                       retry_count: re["retry_count"], failed_at: re["failed_at"], due_in: re.at - Time.now, retry: re["retry"]},
          dead: dead,
          scheduled: {jid: sched.jid, args: sched.args, due_in: sched.at - Time.now, enqueued_at: sched.enqueued_at})`);
    expect(ruby).toMatchObject({
      processed: mine.processed,
      failed: mine.failed,
      scheduledSize: mine.scheduled,
      retrySize: mine.retry,
      deadSize: mine.dead,
      enqueued: 1,
      queues: { low: 1 },
      processes: 0,
      workers: 0,
      lowSize: 1,
      lowJid: waiting,
    });
    // processed and failed count only jobs that ran to an end here: the poison job goes dead unrun
    expect([mine.processed, mine.failed, mine.scheduled, mine.retry, mine.dead]).toEqual([4, 2, 1, 1, 2]);
    expect(ruby.latency).toBeGreaterThanOrEqual(0);
    expect(ruby.latency).toBeLessThan(30);
    expect(ruby.retryEntry).toMatchObject({
      klass: "flaky",
      args: ["f"],
      queue: "default",
      error_class: "TypeError",
      error_message: "flaked",
      retry_count: 0,
      retry: 3,
    });
    const retry = ruby.retryEntry as { due_in: number; failed_at: number };
    expect(retry.due_in).toBeGreaterThan(10);
    expect(retry.due_in).toBeLessThan(30);
    expect(ruby.dead).toMatchObject({
      killed1: {
        klass: "ok",
        error_class: "TickqPoisonJob",
        error_message: expect.stringMatching(/its tick died 1 times/),
      },
    });
    expect(Object.values(ruby.dead as object)).toContainEqual({
      klass: "doomed",
      error_class: "Error",
      error_message: "gone",
      retry_count: 0,
    });
    expect(ruby.scheduled).toMatchObject({ jid: later, args: ["later"], enqueued_at: null });
    expect((ruby.scheduled as { due_in: number }).due_in).toBeGreaterThan(3_500);
  });

  it("Queue#latency after tickq moves a retry first enqueued an hour ago, and a perform_in job: seconds, not an hour", async () => {
    const sent = await w.ruby<{ jid: string }>(`
      class Later; include Sidekiq::Worker; end
      hour_ago = Time.now.to_f - 3600
      job = {"class" => "Later", "args" => [1], "jid" => "old1", "queue" => "default", "retry" => true, "created_at" => hour_ago,
             "enqueued_at" => hour_ago, "failed_at" => hour_ago, "retry_count" => 0, "error_message" => "x", "error_class" => "E"}
      Sidekiq.redis { |c| c.zadd("retry", Time.now.to_f - 1, Sidekiq.dump_json(job)) }
      jid = Later.perform_in(0.5, 2) # (a time already past would be pushed at once)
      sleep 0.6
      out(jid: jid)`);
    expect(await w.make({ Later: () => {} }, { queues: ["elsewhere"] }).tick()).toMatchObject({
      scheduled: 2,
      fetched: 0,
    });
    const read = await w.ruby<{ latency: number; enqueued: Record<string, number | null> }>(`
      q = Sidekiq::Queue.new("default")
      out(latency: q.latency, enqueued: q.map { |j| [j.jid, j.enqueued_at&.to_f] }.to_h)`);
    expect(read.latency).toBeLessThan(5);
    expect(read.enqueued.old1).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(read.enqueued[sent.jid]).toBeGreaterThan(Date.now() / 1000 - 60);
  });

  it("ProcessSet and WorkSet show a running tick and its job; it is gone once the tick finishes", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const tq = w.make({ slow: () => gate });
    const jid = await tq.enqueue("slow", [{ n: 1 }, "é"]);
    const ticking = tq.tick({ concurrency: 3, leaseMs: 10_000 });
    const live = await eventually(async () => {
      const v = await w.ruby<Views>(VIEWS_RB);
      return v.work.length === 1 ? v : undefined;
    });
    expect(live.processes).toHaveLength(1);
    expect(live.processes[0]).toMatchObject({
      hostname: "tickq",
      busy: 1,
      queues: ["default"],
      labels: ["tickq"],
      concurrency: 3,
    });
    expect(live.processes[0]!.beat).toBeGreaterThan(Date.now() / 1000 - 30);
    expect(live.work[0]).toMatchObject({
      process: live.processes[0]!.identity,
      queue: "default",
      jid,
      klass: "slow",
      args: [{ n: 1 }, "é"],
    });
    expect(live).toMatchObject({ size: 1, workers: 1 });
    release();
    await ticking;
    expect(await w.ruby<Views>(VIEWS_RB)).toEqual({ processes: [], work: [], size: 0, workers: 0 });
  });

  it("a tick SIGKILLed mid-run shows while its lease lives, then vanishes from ProcessSet and WorkSet", async () => {
    const tq = w.make({ hang: () => {} });
    await tq.enqueueBulk([1, 2].map((n) => ({ name: "hang" as const, args: [n] })));
    const child = spawn(process.execPath, CHILD, {
      env: { ...process.env, PREFIX: "", BATCH: "2", LEASE_MS: "1500", ENDPOINTS: JSON.stringify({ redisUrl: w.url }) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const live = await eventually(async () => {
      const v = await w.ruby<Views>(VIEWS_RB);
      return v.work.length === 2 ? v : undefined;
    }).catch((e: Error) => Promise.reject(new Error(`${e.message}: ${stderr}`)));
    expect(live.processes).toMatchObject([{ busy: 2 }]);
    child.kill("SIGKILL");
    await exited;
    await sleep(1_700);
    expect(await w.ruby<Views>(VIEWS_RB)).toEqual({ processes: [], work: [], size: 0, workers: 0 });
    // and its jobs are not lost: the next tick resurrects and runs them
    expect(await tq.tick()).toMatchObject({ resurrected: 2, succeeded: 2 });
  });
});
