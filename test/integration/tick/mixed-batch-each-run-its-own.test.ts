// One tick runs a batch of plain jobs of every kind of handler at once: one
// that returns a value, an async one, one that returns a thenable or a
// number, one that throws before it returns, one that rejects with a
// non-Error. With middleware or without, with a timeoutMs or without, each
// run sees its own ctx (jid, payload, queue, attempt, no fence, a live
// signal), keeps its own ctx.log lines, fires its own event exactly once,
// stores its own result, and is counted once in the report and in metrics;
// nothing rejects unhandled, and no timer outlives the tick.
import { expect, it } from "vitest";
import type { FailedEvent, JobEvent } from "../../../src/index.js";
import type { JobContext } from "../../../src/job/context.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { activeTimers, collectUnhandledRejections } from "../../helpers/leftovers.js";

interface Seen {
  jid: string;
  payloadJid: string;
  arg: string;
  queue: string;
  attempt: number;
  fence: number | undefined;
  aborted: boolean;
}

const NAMES = ["syncValue", "asyncValue", "thenable", "number", "syncThrow", "rejectNonError"] as const;
const FAILING = /^(syncThrow|rejectNonError)-/;
const ROUNDS = 3;

describeOverAdapters(adapterCases, "a mixed batch of plain jobs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "mixed-batch");
  const unhandled = collectUnhandledRejections();

  for (const middleware of [false, true])
    for (const timeoutMs of [undefined, 2_000])
      it(`gives each run its own context, event, result and count (middleware: ${middleware}, timeoutMs: ${timeoutMs})`, async () => {
        const seen: Seen[] = [];
        const note = ([arg]: [string], ctx: JobContext) => {
          const { jid, payload, queue, attempt, fence, signal } = ctx;
          seen.push({ jid, payloadJid: payload.jid, arg, queue, attempt, fence, aborted: signal.aborted });
          ctx.log.info(`line of ${arg}`);
          ctx.progress({ of: arg });
        };
        const job = (perform: (args: [string], ctx: JobContext) => unknown) => ({ retry: 2, timeoutMs, perform });
        const succeeded: JobEvent[] = [];
        const failed: FailedEvent[] = [];
        const tq = h.make(
          {
            syncValue: job((args, ctx) => (note(args, ctx), { v: args[0] })),
            asyncValue: job(async (args, ctx) => (note(args, ctx), { v: args[0] })),
            thenable: job((args, ctx) => {
              note(args, ctx);
              // biome-ignore lint/suspicious/noThenProperty: a handler's thenable is the case under test.
              return { then: (answer: (value: unknown) => void) => answer({ v: args[0] }) };
            }),
            number: job((args, ctx) => (note(args, ctx), 42)),
            syncThrow: job((args, ctx) => {
              note(args, ctx);
              throw new Error(`at once ${args[0]}`);
            }),
            rejectNonError: job((args, ctx) => (note(args, ctx), Promise.reject({ code: args[0] }))),
          },
          {
            keepCompleted: { count: 100 },
            on: { succeeded: (e) => void succeeded.push(e), failed: (e) => void failed.push(e) },
          },
        );
        let wrapped = 0;
        if (middleware)
          tq.use(async (_job, _ctx, next) => {
            wrapped++;
            return next();
          });
        const jids = new Map<string, string>();
        for (let round = 0; round < ROUNDS; round++)
          for (const name of NAMES) {
            const arg = `${name}-${round}`;
            jids.set(arg, await tq.enqueue(name, [arg] as never));
          }
        const before = activeTimers();
        const report = await tq.tick({ budgetMs: 5_000, concurrency: 5 });
        const total = NAMES.length * ROUNDS;
        const failing = 2 * ROUNDS;
        expect(report).toMatchObject({ succeeded: total - failing, failed: failing, retried: failing, dead: 0 });
        expect(activeTimers()).toBeLessThanOrEqual(before);
        expect(wrapped).toBe(middleware ? total : 0);

        expect(seen.map((s) => s.arg).sort()).toEqual([...jids.keys()].sort());
        for (const s of seen) {
          expect(s).toEqual({
            jid: jids.get(s.arg),
            payloadJid: jids.get(s.arg),
            arg: s.arg,
            queue: "default",
            attempt: 1,
            fence: undefined,
            aborted: false,
          });
        }

        const jidsWhere = (failed: boolean) =>
          [...jids]
            .filter(([arg]) => FAILING.test(arg) === failed)
            .map(([, jid]) => jid)
            .sort();
        expect(succeeded.map((e) => e.jid).sort()).toEqual(jidsWhere(false));
        expect(failed.map((e) => e.jid).sort()).toEqual(jidsWhere(true));
        for (const e of [...succeeded, ...failed]) expect(jids.get((e.args as string[])[0]!)).toBe(e.jid);

        for (const [arg, jid] of jids) {
          if (FAILING.test(arg)) {
            const stored = (await tq.jobs.find(jid))?.job as { tickq_log?: string[] } | undefined;
            expect(stored?.tickq_log).toHaveLength(1);
            expect(stored?.tickq_log?.[0]).toMatch(new RegExp(`line of ${arg}$`));
          } else {
            const value = arg.startsWith("number") ? 42 : { v: arg };
            expect(await tq.jobs.result(jid)).toMatchObject({ state: "succeeded", value });
          }
        }

        const metrics = await tq.metrics.query({ sinceMs: Date.now() - 120_000 });
        const counted = Object.fromEntries(metrics.jobs.map((s) => [s.name, [s.total.runs, s.total.failures]]));
        expect(counted).toEqual(
          Object.fromEntries(NAMES.map((name) => [name, [ROUNDS, FAILING.test(`${name}-`) ? ROUNDS : 0]])),
        );
        expect(unhandled).toEqual([]);
      });
});
