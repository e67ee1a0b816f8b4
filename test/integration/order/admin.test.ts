// The jobs API over jobs with a priority or a group: they wait apart from
// the plain list, and an operator must still find, list, delete, retry and
// pause them as any queued job, and see their priority and group.
import { describe, expect, it } from "vitest";
import type { JobInfo, JobPage } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("jobs API over priorities and groups over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "order-admin");

  const mixed = async (tq: {
    enqueue(name: "job", args: [string], options?: { priority?: number; group?: string }): Promise<string>;
  }) => ({
    plain: await tq.enqueue("job", ["plain"]),
    urgent: await tq.enqueue("job", ["urgent"], { priority: 9 }),
    a: await tq.enqueue("job", ["a"], { group: "tenant-a" }),
    b: await tq.enqueue("job", ["b"], { group: "tenant-b", priority: -4 }),
  });

  it("find answers a queued job with its priority and group, and no distance from the head", async () => {
    const tq = h.make({ job: (_a: [string]) => {} });
    const jids = await mixed(tq);
    expect(await tq.jobs.find(jids.urgent)).toMatchObject({ state: "queued", queue: "default", priority: 9 });
    const b = (await tq.jobs.find(jids.b))!;
    expect(b).toMatchObject({ state: "queued", queue: "default", priority: -4, group: "tenant-b" });
    expect(b.position).toBeUndefined();
    expect(await tq.jobs.find(jids.plain)).toMatchObject({ state: "queued", position: 0 });
  });

  it("list pages through every part of a queue, a page of one job at a time, and stats count them all", async () => {
    const tq = h.make({ job: (_a: [string]) => {} });
    const jids = await mixed(tq);
    const seen: JobInfo[] = [];
    let cursor: string | null = null;
    do {
      const page: JobPage = await tq.jobs.list("queued", { limit: 1, cursor });
      seen.push(...page.jobs);
      cursor = page.cursor;
    } while (cursor);
    expect(seen.map((j) => j.jid).sort()).toEqual(Object.values(jids).sort());
    expect(seen.find((j) => j.jid === jids.a)).toMatchObject({ group: "tenant-a" });
    expect((await tq.stats()).queues.default).toBe(4);
    expect((await tq.queues.list()).find((q) => q.name === "default")?.size).toBe(4);
  });

  it("delete takes a grouped job out and its group out of the turns; deleteAll empties every part", async () => {
    const tq = h.make({ job: (_a: [string]) => {} });
    const jids = await mixed(tq);
    await tq.jobs.delete(jids.a);
    expect(await tq.jobs.find(jids.a)).toBeNull();
    expect(await h.redis.lrange(`${h.prefix}groups:default`, 0, -1)).not.toContain("tenant-a");
    expect(await tq.jobs.deleteAll("queued", { queue: "default" })).toBe(3);
    expect((await tq.stats()).queues.default).toBe(0);
    expect(await h.redis.keys(`${h.prefix}group*`)).toEqual([]);
    expect(await h.redis.exists(`${h.prefix}prio:default`)).toBe(0);
  });

  it("retry of a dead job brings it back with its priority and group, ahead of plain jobs", async () => {
    const ran: string[] = [];
    const tq = h.make({
      job: {
        perform: (args: [string]) => {
          ran.push(args[0]);
          if (args[0] === "doomed") throw new Error("dies");
        },
        retry: false,
      },
    });
    const doomed = await tq.enqueue("job", ["doomed"], { priority: 3, group: "g" });
    await tq.tick();
    expect((await tq.jobs.find(doomed))?.state).toBe("dead");
    await tq.enqueue("job", ["plain"]);
    const back = await tq.jobs.retry(doomed);
    expect(back).toMatchObject({ state: "queued", priority: 3, group: "g" });
    expect(await h.redis.zcard(`${h.prefix}group:default g`)).toBe(1);
  });

  it("a paused queue's prioritized and grouped jobs wait, and run once it resumes", async () => {
    const ran: string[] = [];
    const tq = h.make({ job: (args: [string]) => void ran.push(args[0]) });
    await tq.queues.pause("default");
    await mixed(tq);
    await tq.tick();
    expect(ran).toEqual([]);
    await tq.queues.resume("default");
    await tq.tick({ concurrency: 1 });
    expect(ran).toHaveLength(4);
    expect(ran[0]).toBe("urgent");
  });
});
