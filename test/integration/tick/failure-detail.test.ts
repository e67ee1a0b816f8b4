import { describe, expect, it } from "vitest";
import { readBacktrace } from "../../../src/admin/backtrace.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("a failure that speaks over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "failure");

  it("keeps error_class, error_message, error_backtrace and the run's last log lines in the job", async () => {
    let run = 0;
    const tq = h.make(
      {
        charge: {
          backoff: () => 0,
          perform: function chargeCard(_args: [], ctx) {
            run++;
            for (let i = 0; i < 5; i++) ctx.log.info(`run ${run} step ${i}`, { amount: 3 });
            if (run === 2) throw "no stack this time";
            throw new TypeError(`card declined (run ${run})`);
          },
        },
      },
      { logLines: 3, backtraceLines: 4 },
    );
    const jid = await tq.enqueue("charge", []);
    await tq.tick();
    const found = (await tq.jobs.find(jid))!;
    const first = found.job;
    expect(first).toMatchObject({ error_class: "TypeError", error_message: "card declined (run 1)", retry_count: 0 });
    // stored as Sidekiq 7 stores it (zlib + base64), read back by find
    expect(first.error_backtrace).toEqual(expect.any(String));
    const backtrace = found.backtrace!;
    expect(await readBacktrace(first.error_backtrace)).toEqual(backtrace);
    expect(backtrace).toHaveLength(4);
    expect(backtrace[0]).toMatch(/chargeCard/);
    expect(first.tickq_log).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\dT.* INFO run 1 step 2 \{"amount":3\}$/),
      expect.stringMatching(/INFO run 1 step 3/),
      expect.stringMatching(/INFO run 1 step 4/),
    ]);
    await tq.tick(); // run 2 throws a string: no backtrace, and the old one must not linger
    const again = (await tq.jobs.find(jid))!;
    const second = again.job;
    expect(second).toMatchObject({ error_class: "string", error_message: "no stack this time", retry_count: 1 });
    expect(again.backtrace).toEqual([]);
    expect((second.tickq_log as string[])[2]).toMatch(/run 2 step 4/);
    // spliced, not re-encoded: each field appears once
    const raw = (await tq.jobs.find(jid))!.raw;
    expect(raw.match(/"error_backtrace"/g)).toHaveLength(1);
    expect(raw.match(/"tickq_log"/g)).toHaveLength(1);
  });

  it("keeps the job's own backtrace option over backtraceLines, as Sidekiq reads it", async () => {
    const tq = h.make(
      {
        deep: {
          retry: false,
          perform: () => {
            throw new Error("x");
          },
        },
      },
      { backtraceLines: 1 },
    );
    await h.redis.lpush(
      `${h.prefix}queue:default`,
      JSON.stringify({ class: "deep", args: [], jid: "own", queue: "default", retry: false, backtrace: 3 }),
    );
    const jid = await tq.enqueue("deep", []);
    await tq.tick();
    expect((await tq.jobs.find("own"))!.backtrace).toHaveLength(3);
    expect((await tq.jobs.find(jid))!.backtrace).toHaveLength(1);
  });

  it("keeps neither when both are turned off, and no empty ones for a job that never had them", async () => {
    const tq = h.make(
      {
        quiet: {
          retry: false,
          perform: () => {
            throw new Error("x");
          },
        },
      },
      { logLines: 0, backtraceLines: 0 },
    );
    const jid = await tq.enqueue("quiet", []);
    await tq.tick();
    const job = (await tq.jobs.find(jid))!.job;
    expect(job).not.toHaveProperty("error_backtrace");
    expect(job).not.toHaveProperty("tickq_log");
  });

  it("logs one line per failure: name, jid, attempt, error and when the retry is due", async () => {
    const tq = h.make({
      flaky: {
        retry: 1,
        backoff: () => 30,
        perform: () => {
          throw new Error("upstream 503\nwith detail");
        },
      },
    });
    const jid = await tq.enqueue("flaky", []);
    await tq.tick();
    const lines = h.logged.filter((l) => l.includes(jid));
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^tickq: job flaky ${jid} failed \\(attempt 1\\): Error: upstream 503; retry due \\d{4}-.*Z \\(in 30 s\\)$`,
        ),
      ),
    ]);
    await h.redis.zadd(`${h.prefix}retry`, "XX", "0", (await h.redis.zrange(`${h.prefix}retry`, "0", "0"))[0]!);
    await tq.tick();
    expect(h.logged.filter((l) => l.includes(jid)).at(-1)).toMatch(
      /failed \(attempt 2\): Error: upstream 503; out of retries, moved to the dead set$/,
    );
  });
});
