// A queue or a job may be named after any Object.prototype member
// (`toString`, `hasOwnProperty`, `__proto__`…): stats() counts each as its
// own name, over one partition and merged over three, and so do the
// warnings, the metrics, GET /stats and the dashboard's overview. What
// stats() returns stays a plain object whose names are own properties, that
// JSON.stringify writes whole and String() still prints.
import { expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { createApp } from "../../../src/http/app.js";
import type { Stats } from "../../../src/index.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "../dashboard/login.js";

const SECRET = "prototype-names-s3cret-for-tests";
/** Every Object.prototype member name: `__proto__`, `constructor`, `toString`, `hasOwnProperty`, `__defineGetter__`… */
const NAMES = Object.getOwnPropertyNames(Object.prototype).sort();
const eachName = <T>(value: T) => Object.fromEntries(NAMES.map((name) => [name, value]));

/** `record` without the declared, served and empty queue "default" (stats() lists a declared queue before its first job). */
const undeclared = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).filter(([name]) => name !== "default"));

/** `record` holds exactly NAMES as own properties, each `value`. */
function expectEachName(record: Record<string, unknown>, value: unknown): void {
  expect(Object.keys(record).sort()).toEqual(NAMES);
  for (const name of NAMES) {
    expect(Object.hasOwn(record, name)).toBe(true);
    expect(record[name]).toEqual(value);
  }
}

describeOverAdapters(adapterCases, "names that are Object.prototype members over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "proto-names");

  // The cluster case's prefix carries a hash tag, which partitions refuse; the merge is the same code over any
  // topology, and partitions over a real cluster are partitions-spread-over-cluster's.
  for (const partitions of adapterCase.name === "cluster" ? [1] : [1, 3]) {
    it(`counts a queue and a job of each such name as their own, in ${partitions} partition(s)`, async () => {
      // A job of each name, in the queue of the same name.
      const jobs = Object.fromEntries(NAMES.map((name) => [name, { queue: name, perform: () => {} }]));
      const tq = h.make(jobs, { partitions, queues: ["default"] });
      await tq.enqueueBulk(NAMES.map((name) => ({ name, args: [] })));
      // A tick that serves none of them: each waits in a queue no tick served.
      await tq.tick({ budgetMs: 1_000 });

      const stats = await tq.stats();
      expect(stats.queues.default).toBe(0);
      expectEachName(undeclared(stats.queues), 1);
      expect(Object.keys(undeclared(stats.latency)).sort()).toEqual(NAMES);
      for (const name of NAMES) expect(typeof stats.latency[name]).toBe("number");
      expectEachName(stats.flow, { locksHeld: 0, waiting: 0, deferred: 0 });
      expect(Object.getPrototypeOf(stats.queues)).toBe(Object.prototype);
      expect(String(stats.queues)).toBe("[object Object]");
      expect(`${stats.flow}`).toBe("[object Object]");
      const parsed = JSON.parse(JSON.stringify(stats)) as Stats;
      expectEachName(undeclared(parsed.queues), 1);
      for (const name of NAMES)
        expect(stats.warnings.some((w) => w.includes(`queue "${name}", but no tick has ever served it`))).toBe(true);
      expect(stats.warnings.join(" ")).not.toMatch(/NaN|native code/);

      const app = createApp({ tickq: tq, secrets: [SECRET], dashboard: dashboard() });
      const answer = await app.request("/stats", { headers: { Authorization: `Bearer ${SECRET}` } });
      expectEachName(undeclared(((await answer.json()) as Stats).queues), 1);
      const { html } = await (await login(app, SECRET)).get("/dashboard");
      expect(html).not.toContain("native code");
      for (const name of NAMES)
        expect(html).toMatch(new RegExp(`>${name}</a>(?:(?!</tr>)[\\s\\S])*<td data-waiting>1</td>`));

      // Now served: each name's run counts in the metrics, and its queue empties.
      const serving = h.make(jobs, { partitions, queues: NAMES });
      await serving.tick({ budgetMs: 3_000 });
      const after = await tq.stats();
      expectEachName(undeclared(after.queues), 0);
      const metrics = await tq.metrics.query({ sinceMs: Date.now() - 600_000 });
      expect(metrics.jobs.map((s) => s.name).sort()).toEqual(NAMES);
      expect(metrics.queues.map((s) => s.queue).sort()).toEqual(NAMES);
      for (const s of metrics.queues) expect(s.total.waits).toBe(1);
      const text = await tq.metrics.prometheus();
      for (const name of NAMES)
        expect(text).toMatch(new RegExp(`tickq_queue_size\\{(partition="\\d",)?queue="${name}"\\} 0`));
      expect(eachName(0)).toEqual(undeclared(after.queues));
    });
  }
});
