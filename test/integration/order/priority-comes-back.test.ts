// A job keeps its priority and group wherever it comes back from — a retry,
// a delay, a tick that died holding it — because a job that loses its place
// on a failure would starve behind the backlog it was meant to jump.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("priority across retry, delay and resurrection over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "prio-back");

  it("a failed job of priority 5 comes back from its retry ahead of plain jobs queued meanwhile", async () => {
    const ran: string[] = [];
    let failures = 0;
    const tq = h.make({
      flaky: {
        perform: () => {
          ran.push("flaky");
          if (failures++ === 0) throw new Error("first attempt fails");
        },
        backoff: () => 0.2,
      },
      plain: (args: [number]) => void ran.push(`plain${args[0]}`),
    });
    await tq.enqueue("flaky", [], { priority: 5 });
    await tq.tick();
    expect(ran).toEqual(["flaky"]);
    expect(await h.redis.zcard(`${h.prefix}retry`)).toBe(1);
    for (let i = 0; i < 3; i++) await tq.enqueue("plain", [i]);
    await sleep(300);
    await tq.tick({ concurrency: 1 });
    expect(ran).toEqual(["flaky", "flaky", "plain0", "plain1", "plain2"]);
  });

  it("a delayed job of priority 5 starts, once due, ahead of plain jobs queued before it", async () => {
    const ran: string[] = [];
    const tq = h.make({ job: (args: [string]) => void ran.push(args[0]) });
    for (let i = 0; i < 3; i++) await tq.enqueue("job", [`plain${i}`]);
    await tq.enqueue("job", ["delayed"], { priority: 5, delayMs: 50 });
    await tq.enqueue("job", ["delayed-group"], { group: "g", delayMs: 50 });
    await sleep(100);
    await tq.tick({ concurrency: 1 });
    expect(ran[0]).toBe("delayed");
    expect(ran.slice(1)).toContain("delayed-group");
    expect(ran).toHaveLength(5);
  });

  it("a job a dead tick held goes back to the head of its priority, ahead of its equals and of plain jobs", async () => {
    const ran: string[] = [];
    const tq = h.make({ job: (args: [string]) => void ran.push(args[0]) });
    await tq.enqueue("job", ["plain"]);
    await tq.enqueue("job", ["first"], { priority: 5 });
    await tq.enqueue("job", ["second"], { priority: 5 });
    // What a tick that died after fetching "second" leaves: the job in its list, its registration, no lease.
    const prio = `${h.prefix}prio:default`;
    const [, held] = await h.redis.zrange(prio, "0", "-1");
    await h.redis.zrem(prio, held!);
    await h.redis.lpush(`${h.prefix}inproc:dead-tick:default`, held!);
    await h.redis.hset(`${h.prefix}ticks`, "dead-tick", "0 1000 default");
    const report = await tq.tick({ concurrency: 1 });
    expect(report.resurrected).toBe(1);
    expect(ran).toEqual(["second", "first", "plain"]);
  });

  it("a job put back at a tick's deadline keeps its group's place", async () => {
    const ran: string[] = [];
    const tq = h.make({ job: (args: [string]) => void ran.push(args[0]) });
    await tq.enqueue("job", ["a1"], { group: "a" });
    await tq.enqueue("job", ["a2"], { group: "a" });
    // A tick too short to start anything puts what it fetched back.
    await tq.tick({ budgetMs: 1, batch: 2 });
    expect(await h.redis.zcard(`${h.prefix}group:default a`)).toBe(2 - ran.length);
    await tq.tick({ concurrency: 1 });
    expect(ran).toEqual(["a1", "a2"]);
    expect(await h.redis.exists(`${h.prefix}groups:default`)).toBe(0);
  });
});
