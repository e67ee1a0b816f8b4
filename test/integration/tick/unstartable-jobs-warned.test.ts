// A job that the ticks that run can never start is named in stats().warnings
// with how many wait: one whose timeoutMs is above the whole budget of every
// tick that served its queue lately, or one whose name the ticks that fetch
// it do not declare. (A queue no tick serves: heartbeat-and-history.test.ts.)
// Ticks record what they met in their finish call, so any reader (the CLI,
// a dashboard with no jobs declared) sees it.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, tickKeys } from "../../helpers/tick-calls.js";

const noop = () => {};

describe.each(adapterCases)("jobs no tick can start are warned about over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "unstartable");

  it("a job whose timeoutMs is above every tick's budget: its name and count in stats().warnings", async () => {
    const tq = h.make({ report: { timeoutMs: 4_000, perform: noop }, quick: noop });
    await tq.enqueueBulk([
      { name: "report", args: [1] },
      { name: "report", args: [2] },
      { name: "report", args: [3] },
      { name: "quick", args: [] },
    ]);
    expect(await tq.tick({ budgetMs: 900 })).toMatchObject({ succeeded: 1, requeued: 3 });
    await tq.tick({ budgetMs: 900 });
    const { warnings } = await tq.stats();
    expect(warnings).toEqual([
      expect.stringMatching(
        /^3 job\(s\) of "report" in queue "default" cannot start: its timeoutMs 4000 is above the budget of every tick that served the queue lately \(at most 900 ms\)/,
      ),
    ]);
    // A reader that declares no jobs (the CLI, a dashboard) sees the same.
    expect((await h.make({}).stats()).warnings).toEqual(warnings);
  });

  it("the logger names the job, its timeoutMs and the tick's budget in whole milliseconds, once", async () => {
    const tq = h.make({ report: { timeoutMs: 4_000, perform: noop } });
    await tq.enqueue("report", [1]);
    await tq.tick({ budgetMs: 900.5 });
    await tq.tick({ budgetMs: 900.5 });
    expect(h.logged.filter((m) => m.includes("whole budget"))).toEqual([
      expect.stringMatching(
        /^tickq: job report has timeoutMs 4000 but this tick's whole budget is 900 ms, .*lower the job's timeoutMs$/,
      ),
    ]);
  });

  it("says nothing while a tick with budget enough has served the queue lately", async () => {
    const tq = h.make({ report: { timeoutMs: 4_000, perform: noop } });
    await tq.enqueue("report", [1]);
    await tq.tick({ budgetMs: 900 });
    expect((await tq.stats()).warnings).toHaveLength(1);
    expect(await tq.tick({ budgetMs: 5_000 })).toMatchObject({ succeeded: 1 });
    await tq.enqueue("report", [2]);
    await tq.tick({ budgetMs: 900 }); // the large tick ran lately: it will start this one
    expect((await tq.stats()).warnings).toEqual([]);
  });

  it("a job whose name the ticks that fetch it do not declare: its name and count in stats().warnings", async () => {
    const web = h.make({ welcome: noop, known: noop });
    const oldTicker = h.make({ known: noop });
    await web.enqueueBulk([
      { name: "welcome", args: [1] },
      { name: "welcome", args: [2] },
      { name: "known", args: [] },
    ]);
    expect(await oldTicker.tick()).toMatchObject({ succeeded: 1, retried: 2 });
    expect((await web.stats()).warnings).toEqual([
      expect.stringMatching(
        /^2 job\(s\) of "welcome" in queue "default" were fetched by a tick that does not declare "welcome"/,
      ),
    ]);
  });

  it("records at most 100 job names, whatever the ticks meet", async () => {
    const web = h.make(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`job${i}`, noop])));
    await web.enqueueBulk(Array.from({ length: 150 }, (_, i) => ({ name: `job${i}`, args: [] })));
    await h.make({}).tick({ batch: 200 });
    expect(await h.redis.hlen(`${h.prefix}unstartable`)).toBe(100);
    expect((await web.stats()).warnings).toHaveLength(100);
  });

  it("finish run twice records what the tick met once, and answers the same", async () => {
    const { callTwice } = scriptCalls(h);
    await h.redis.hset(`${h.prefix}ticks`, "t1", "1 5000 default");
    await h.redis.hset(`${h.prefix}tick:t1`, "seq", "1");
    await h.redis.pexpire(`${h.prefix}tick:t1`, 5_000);
    const args = finishArgs({
      tick: "t1",
      leaseMs: 5_000,
      call: 2,
      unstartable: {
        budgetMs: 900,
        windowMs: 300_000,
        entries: [{ name: "report", reason: "timeout", queue: "default", limitMs: 4_000, count: 3 }],
      },
    });
    const { after } = await callTwice(protocol.finish, tickKeys("t1"), args);
    expect(after.unstartable).toEqual({ report: expect.stringMatching(/^\d+ 3 timeout 4000 900 default$/) });
    expect(after.budgets).toEqual({ default: expect.stringMatching(/^900 \d+$/) });
  });
});
