// The parked job a release sent on keeps its place when a holder put back
// (unstarted, or resurrected) goes in front of it and takes the slot again:
// the fetch that finds it parks it at the oldest end, so it is the next to
// run, and its followers keep their enqueue order (docs/internals/known-issues.md, O2).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { acksOf, finishArgs, jobsOf, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const beginArgs = (tick: string, fetch: number) => beginNamed({ tick, leaseMs: LEASE, batch: fetch });
const jidOf = (job: string) => JSON.parse(job).jid as string;

describe.each(adapterCases)("the job sent on, overtaken by a holder put back, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-sent-order");
  const { call, callTwice } = scriptCalls(h);
  const jobs = { sync: { perform: () => {}, uniqueKey: ([k]: [string]) => k } };
  const begin = async (tick: string, fetch: number) =>
    jobsOf((await call(protocol.begin, tickKeys(tick), beginArgs(tick, fetch))).fetched);
  const parkedJids = async () => (await h.redis.lrange(`${h.prefix}flow:park:u:a`, 0, -1)).map(jidOf).reverse(); // oldest first

  /** j holds key a (its tick t1), p1–p3 parked behind it at enqueue; then j is put back unstarted, which sends p1 on. */
  async function holderPutBack(): Promise<void> {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      ["j", "p1", "p2", "p3"].map((jid) => ({
        name: "sync" as const,
        args: ["a"] as [string],
        unique: "while-executing" as const,
        jid,
      })),
    );
    expect(await parkedJids()).toEqual(["p1", "p2", "p3"]);
    const held = await begin("t1", 10);
    expect(held.map((f) => jidOf(f.raw))).toEqual(["j"]);
    await call(
      protocol.finish,
      tickKeys("t1"),
      finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: acksOf([{ kind: "unstarted", job: held[0]! }]) }),
    );
    // j is back at the head of the queue, p1 (sent on by j's release) behind it
    expect((await h.redis.lrange(`${h.prefix}queue:default`, 0, -1)).map(jidOf)).toEqual(["p1", "j"]);
  }

  it("the next fetch starts the holder and parks p1 at the oldest end, once", async () => {
    await holderPutBack();
    const { first, after } = await callTwice(protocol.begin, tickKeys("t2"), beginArgs("t2", 10));
    expect(jobsOf(first.fetched).map((f) => jidOf(f.raw))).toEqual(["j"]);
    expect((after["flow:park:u:a"] as string[]).map(jidOf).reverse()).toEqual(["p1", "p2", "p3"]);
    expect(after["flow:sent"]).toBeUndefined(); // p1 waits parked: the next release sends it on
  });

  it("they run in their enqueue order: j, p1, p2, p3", async () => {
    await holderPutBack();
    const ran: string[] = [];
    const tq = h.make({ sync: { perform: () => {}, uniqueKey: ([k]: [string]) => k } });
    tq.on("succeeded", (e) => ran.push(e.jid));
    for (let i = 0; i < 20 && ran.length < 4; i++) await tq.tick({ batch: 10, concurrency: 10, budgetMs: 5_000 });
    expect(ran).toEqual(["j", "p1", "p2", "p3"]);
  });

  it("a holder resurrected from a dead tick: the same order", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      ["j", "p1", "p2", "p3"].map((jid) => ({
        name: "sync" as const,
        args: ["a"] as [string],
        unique: "while-executing" as const,
        jid,
      })),
    );
    expect((await begin("dead", 10)).map((f) => jidOf(f.raw))).toEqual(["j"]);
    await h.redis.del(`${h.prefix}tick:dead`, `${h.prefix}resurrector`); // the lease gone, and no resurrection pass ran lately
    const ran: string[] = [];
    tq.on("succeeded", (e) => ran.push(e.jid));
    for (let i = 0; i < 20 && ran.length < 4; i++) await tq.tick({ batch: 10, concurrency: 10, budgetMs: 5_000 });
    expect(ran).toEqual(["j", "p1", "p2", "p3"]);
  });
});
