// Queue latency counts every waiting job, not only the plain list's next one:
// a low-priority job that waits behind newer high-priority ones, and jobs of
// fair-share groups (lib/order/read-order.lua keeps both apart from the
// list), make their queue's latency their age — in stats(), queues.list(),
// metrics.query(), the Queues page and /metrics alike.
import { describe, expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { parseScrape } from "../../helpers/prometheus.js";
import { snapshot } from "../../helpers/snapshot.js";
import { login } from "../dashboard/login.js";

const SECRET = "latency-s3cret-for-tests";
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("queue latency of prioritized and grouped jobs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "latency-order");

  it("is the age of the oldest job wherever it waits: a low priority, a group, a group's low level", async () => {
    const tickq = h.make({ work: () => {} }, { queues: ["prio", "groups", "levels", "plain"] });
    const before = Date.now();
    await tickq.enqueue("work", [1], { queue: "prio", priority: -5 }); // runs last, waits longest
    await tickq.enqueue("work", [2], { queue: "groups", group: "tenant-a" });
    await tickq.enqueue("work", [3], { queue: "levels", group: "tenant-a", priority: -1 });
    await sleep(400);
    // Newer jobs that run first do not hide the oldest.
    await tickq.enqueue("work", [4], { queue: "prio", priority: 5 });
    await tickq.enqueue("work", [5], { queue: "prio" });
    await tickq.enqueue("work", [6], { queue: "groups", group: "tenant-b" });
    await tickq.enqueue("work", [7], { queue: "groups" });
    await tickq.enqueue("work", [8], { queue: "levels", group: "tenant-a", priority: 3 });
    await tickq.enqueue("work", [9], { queue: "levels", group: "tenant-a" });
    await tickq.enqueue("work", [10], { queue: "plain" });
    await sleep(50);
    const asked = Date.now();
    const stats = await tickq.stats();
    const after = Date.now();
    for (const queue of ["prio", "groups", "levels"]) {
      expect(stats.latency[queue], queue).toBeGreaterThanOrEqual(449);
      expect(stats.latency[queue], queue).toBeLessThanOrEqual(after - before + 1);
    }
    // The plain job came 400 ms and six enqueues after the oldest of "prio".
    expect(stats.latency.plain).toBeGreaterThanOrEqual(49);
    expect(stats.latency.plain).toBeLessThanOrEqual(stats.latency.prio! - 399);

    const listed = Object.fromEntries((await tickq.queues.list()).map((q) => [q.name, q.latencyMs]));
    const queried = Object.fromEntries(
      (await tickq.metrics.query({ sinceMs: Date.now() - 60_000 })).queues.map((q) => [q.queue, q.latencyMs]),
    );
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const scraped = parseScrape(
      await (await app.request("/metrics", { headers: { Authorization: `Bearer ${SECRET}` } })).text(),
    );
    const { html } = await (await login(app, SECRET)).get("/dashboard/queues");
    const readsTook = Date.now() - asked;
    for (const queue of ["prio", "groups", "levels", "plain"]) {
      // Read a moment later each time: never less than stats() said, nor more than the time the reads took.
      for (const [where, ms] of [
        ["queues.list", listed[queue]!],
        ["metrics.query", queried[queue]!],
        ["/metrics", scraped.value("tickq_queue_latency_seconds", { queue })! * 1000],
        ["Queues page", Number(new RegExp(`data-queue="${queue}">.*?data-ms="(\\d+)"`).exec(html)?.[1])],
      ] as const) {
        expect(ms, `${where} ${queue}`).toBeGreaterThanOrEqual(stats.latency[queue]!);
        expect(ms, `${where} ${queue}`).toBeLessThanOrEqual(stats.latency[queue]! + readsTook + 1);
      }
    }

    // Once drained, nothing waits: 0.
    await tickq.tick();
    expect((await tickq.stats()).latency).toEqual({ prio: 0, groups: 0, levels: 0, plain: 0 });
  });

  it("reads only", async () => {
    const tickq = h.make({ work: () => {} });
    await tickq.enqueue("work", [1], { priority: 2 });
    await tickq.enqueue("work", [2], { group: "g", priority: -2 });
    const before = await snapshot(h.redis, h.prefix);
    await tickq.stats();
    await tickq.queues.list();
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });
});
