// After a Redis restart (or a failover), exclusive work is held for a lease
// while plain jobs run, and a tick whose lease was taken before the restart
// is told it lost it (src/lua/lib/tick/restart-hold.lua). The shared Redis is
// never restarted here: the prefix's record P.."boot" is written as a Redis of
// another run_id left it, which is what a restart looks like to the scripts
// (bench/rollback-overlap.ts and test/integration/durability/ restart for real).
// begin and extend run twice with the same arguments under the hold.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

const LEASE_MS = 1_000;

describe.each(adapterCases)("after a Redis restart over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "restart-hold");
  const { call, callTwice } = scriptCalls(h);
  /** The record a Redis of another run_id left: the next script sees a restart. */
  const restarted = () =>
    h.redis.hset(`${h.prefix}boot`, { lastsave: "0", run: "0".repeat(40), at: "0", lease: String(LEASE_MS) });
  const serverRun = async () => /run_id:(\w+)/.exec(await h.redis.info("server"))![1]!;

  it("holds ordered ids, limit-1 jobs, until-executed jobs and workflow runs for a lease while plain jobs run", async () => {
    const ran: string[] = [];
    const tq = h.make(
      {
        plain: { perform: async () => void ran.push("plain") },
        limited: { perform: async () => void ran.push("limited"), concurrency: { key: () => "k", limit: 1 } },
        once: { perform: async () => void ran.push("once") },
      },
      {
        ordered: { ordered: { perform: async (id: string) => void ran.push(`ordered ${id}`) } },
        workflows: { flow: { run: async () => void ran.push("workflow") } },
      },
    );
    await tq.enqueue("plain", []);
    await tq.enqueue("limited", []);
    // Its claim, made at enqueue, may be one a rollback forgot while an earlier copy still runs.
    await tq.enqueue("once", [], { unique: "until-executed" });
    await tq.enqueueOrdered("ordered", { id: "a", payload: 1 });
    await tq.workflows.start("flow", { id: "w1", input: {} });
    await restarted();
    const held = await tq.tick({ budgetMs: 2_000, leaseMs: LEASE_MS });
    expect(ran).toEqual(["plain"]);
    expect(held.roundTrips).toBeLessThanOrEqual(4); // nothing exclusive to do now: no loop
    const boot = await h.redis.hgetall(`${h.prefix}boot`);
    expect(boot.run).toBe(await serverRun());
    const holdEnd = Number(boot.at) + LEASE_MS;
    // The limit-1 and until-executed jobs wait in the schedule until the hold ends, as a rate limit defers one.
    const scheduled = await h.redis.zrange(`${h.prefix}schedule`, "0", "-1", "WITHSCORES");
    expect(scheduled).toHaveLength(4);
    expect([scheduled[0], scheduled[2]].join(" ")).toMatch(/"limited"[\s\S]*"once"|"once"[\s\S]*"limited"/);
    for (const due of [scheduled[1], scheduled[3]]) expect(Number(due)).toBeCloseTo(holdEnd / 1_000, 3);
    await new Promise((r) => setTimeout(r, Math.max(0, holdEnd - Date.now()) + 100));
    await tq.tick({ budgetMs: 2_000, leaseMs: LEASE_MS });
    expect(ran.sort()).toEqual(["limited", "once", "ordered a", "plain", "workflow"]);
  });

  it("tells a tick whose lease predates the restart that it lost it: its handlers abort", async () => {
    let aborted = false;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const tq = h.make(
      {},
      {
        ordered: {
          ordered: {
            perform: async (_id: string, _p: unknown[], ctx: OrderedContext) => {
              started();
              await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, 5_000);
                ctx.signal.addEventListener("abort", () => {
                  aborted = true;
                  clearTimeout(timer);
                  resolve();
                });
              });
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("ordered", { id: "a", payload: 1 });
    const ticking = tq.tick({ budgetMs: 5_000, leaseMs: LEASE_MS, cancelCheckMs: 50 });
    await running;
    const [lease] = await h.redis.keys(`${h.prefix}tick:*`);
    expect(await h.redis.hget(lease!, "boot")).toBe(await serverRun());
    await h.redis.hset(lease!, "boot", "0".repeat(40)); // stamped by the Redis before a restart
    const report = await ticking;
    expect(aborted).toBe(true);
    expect(report.leaseLost).toBe(true);
  });

  it("begin run twice under the hold hands out no ordered id and answers the same", async () => {
    await h.make({}, { ordered: { ordered: { perform: async () => {} } } }).enqueueOrdered("ordered", {
      id: "a",
      payload: 1,
    });
    await restarted();
    const o = { tick: "t1", leaseMs: LEASE_MS, ordered: ["ordered"], workflowClaim: 0 };
    const { first } = await callTwice(protocol.begin, beginKeys(o), beginNamed(o));
    expect(first.leaseHeld).toBe(true);
    expect(first.ordered?.flatMap((group) => group.ids) ?? []).toEqual([]);
  });

  it("sees a restart within the second LASTSAVE names: the record of the Redis before, with that LASTSAVE, holds ordered ids", async () => {
    await h.make({}, { ordered: { ordered: { perform: async () => {} } } }).enqueueOrdered("ordered", {
      id: "a",
      payload: 1,
    });
    // Written by a Redis of another run_id in the second this one started (or last saved): LASTSAVE alike.
    const lastsave = String(await h.redis.lastsave());
    await h.redis.hset(`${h.prefix}boot`, { lastsave, run: "0".repeat(40), at: "0", lease: String(LEASE_MS) });
    const o = { tick: "t1", leaseMs: LEASE_MS, ordered: ["ordered"], workflowClaim: 0 };
    const { first } = await callTwice(protocol.begin, beginKeys(o), beginNamed(o));
    expect(first.ordered?.flatMap((group) => group.ids) ?? []).toEqual([]);
    const boot = await h.redis.hgetall(`${h.prefix}boot`);
    expect(boot.run).toBe(await serverRun());
    expect(boot.sure).toBe(lastsave); // checked after that second: the fast path holds for this LASTSAVE
  });

  it("sees a restart within the second of a save that a check of the release before `sure` recorded over a record marked sure", async () => {
    await h.make({}, { ordered: { ordered: { perform: async () => {} } } }).enqueueOrdered("ordered", {
      id: "a",
      payload: 1,
    });
    // A rolling deploy: this release marked the record sure of an earlier save; a tick of the release before
    // (its check writes `lastsave` alone) saw the next save in that save's second; the Redis then restarted
    // within it, so the Redis now answers that LASTSAVE under another run_id.
    const lastsave = String(await h.redis.lastsave());
    await h.redis.hset(`${h.prefix}boot`, {
      lastsave,
      run: "0".repeat(40),
      at: "0",
      lease: String(LEASE_MS),
      sure: "1",
    });
    const o = { tick: "t1", leaseMs: LEASE_MS, ordered: ["ordered"], workflowClaim: 0 };
    const { first } = await callTwice(protocol.begin, beginKeys(o), beginNamed(o));
    expect(first.ordered?.flatMap((group) => group.ids) ?? []).toEqual([]);
    expect((await h.redis.hgetall(`${h.prefix}boot`)).run).toBe(await serverRun());
  });

  it("extend run twice on a lease stamped before the restart answers lost both times and extends nothing", async () => {
    const o = { tick: "t1", leaseMs: LEASE_MS };
    await call(protocol.begin, beginKeys(o), beginNamed(o));
    await h.redis.hset(`${h.prefix}tick:t1`, "boot", "0".repeat(40));
    await h.redis.pexpire(`${h.prefix}tick:t1`, 60_000);
    const { first } = await callTwice(
      protocol.extend,
      { lease: "tick:t1" },
      { tickId: "t1", leaseMs: 30_000, load: "" },
    );
    expect(first.extended).toBe(false);
    expect(await h.redis.pttl(`${h.prefix}tick:t1`)).toBeGreaterThan(30_000); // not set to the 30 s asked
  });
});
