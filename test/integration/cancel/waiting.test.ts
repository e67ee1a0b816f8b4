// tq.jobs.cancel of a job that waits (queued, scheduled, retry, parked on a
// flow key): taken out at once and recorded cancelled — it never runs, its
// result says cancelled, the `cancelled` event fires, stats count it — and a
// finished or unknown job is refused (CONFLICT, NOT_FOUND), so a caller can
// tell a cancel that did something from one that could not.
import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/index.js";
import type { CancelledEvent } from "../../../src/tick/events.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("cancel of a waiting job over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cancel-waiting");

  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => "resolved",
      (error: unknown) => (error instanceof TickqError ? error.code : String(error)),
    );

  it("takes a queued job out, records it cancelled, and it never runs", async () => {
    const ran: string[] = [];
    const events: CancelledEvent[] = [];
    const tq = h.make(
      { work: (args: [string]) => void ran.push(args[0]) },
      { on: { cancelled: (e) => void events.push(e) } },
    );
    const keep = await tq.enqueue("work", ["keep"]);
    const jid = await tq.enqueue("work", ["drop"]);
    expect(await tq.jobs.cancel(jid)).toEqual({ jid, state: "cancelled", from: "queued" });
    await tq.tick();
    expect(ran).toEqual(["keep"]);
    expect(await tq.jobs.result(jid)).toMatchObject({ state: "cancelled", error: { class: "TickqCancelled" } });
    expect((await tq.jobs.result(keep)).state).not.toBe("cancelled");
    const found = await tq.jobs.find(jid);
    expect(found).toMatchObject({ state: "cancelled", cancelledFrom: "queued", name: "work" });
    expect(found?.job).not.toHaveProperty("tickq_cancelled_from");
    expect(events.map((e) => [e.jid, e.from, e.name])).toEqual([[jid, "queued", "work"]]);
    expect(Number(await h.redis.get(`${h.prefix}stat:cancelled`))).toBe(1);
    expect((await tq.stats()).cancelled).toBe(1);
  });

  it("takes scheduled and retry jobs out of their sets", async () => {
    const ran: string[] = [];
    const tq = h.make({
      work: (args: [string]) => void ran.push(args[0]),
      flaky: () => {
        throw new Error("again");
      },
    });
    const later = await tq.enqueue("work", ["later"], { delayMs: 60_000 });
    const failing = await tq.enqueue("flaky", []);
    await tq.tick();
    expect((await tq.jobs.find(failing))?.state).toBe("retry");
    expect(await tq.jobs.cancel(later)).toMatchObject({ state: "cancelled", from: "scheduled" });
    expect(await tq.jobs.cancel(failing)).toMatchObject({ state: "cancelled", from: "retry" });
    expect(await h.redis.zcard(`${h.prefix}schedule`)).toBe(0);
    expect(await h.redis.zcard(`${h.prefix}retry`)).toBe(0);
    expect((await tq.jobs.find(failing))?.cancelledFrom).toBe("retry");
  });

  it("answers CONFLICT for a job that ended (succeeded, dead, cancelled) and NOT_FOUND for an unknown jid", async () => {
    const tq = h.make(
      {
        work: () => "done",
        broken: () => {
          throw new Error("no");
        },
      },
      { keepCompleted: { count: 10 } },
    );
    const done = await tq.enqueue("work", []);
    const dead = await tq.enqueue("broken", [], { retry: false });
    await tq.tick();
    expect(await codeOf(tq.jobs.cancel(done))).toBe("CONFLICT");
    expect(await codeOf(tq.jobs.cancel(dead))).toBe("CONFLICT");
    const queued = await tq.enqueue("work", []);
    await tq.jobs.cancel(queued);
    expect(await codeOf(tq.jobs.cancel(queued))).toBe("CONFLICT");
    expect(await codeOf(tq.jobs.cancel("no-such-jid"))).toBe("NOT_FOUND");
    expect(await codeOf(tq.jobs.cancel("has space"))).toBe("BAD_ARGS");
  });

  it("writes an awaited job's outcome: enqueueAndWait throws the cancel", async () => {
    const tq = h.make({ work: () => "never" });
    const waiting = tq.enqueueAndWait("work", [], { timeoutMs: 5_000, delayMs: 60_000, kick: false });
    let jid: string | undefined;
    for (let i = 0; i < 100 && jid === undefined; i++) {
      const page = await tq.jobs.list("scheduled");
      jid = page.jobs[0]?.jid;
      if (jid === undefined) await new Promise((r) => setTimeout(r, 10));
    }
    await tq.jobs.cancel(jid!);
    await expect(waiting).rejects.toMatchObject({ code: "JOB_FAILED", state: "cancelled" });
  });

  it("cancels a flow job parked on a busy key; the key's next job moves on", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const ran: string[] = [];
    const tq = h.make({
      keyed: {
        perform: async (args: [string]) => {
          ran.push(args[0]);
          if (args[0] === "first") await held;
        },
        concurrency: { key: () => "k", limit: 1 },
      },
    });
    await tq.enqueue("keyed", ["first"]);
    const parked = await tq.enqueue("keyed", ["second"]);
    await tq.enqueue("keyed", ["third"]);
    const ticking = tq.tick({ budgetMs: 3_000 });
    let state: string | undefined;
    for (let i = 0; i < 100 && state !== "queued"; i++) {
      const found = await tq.jobs.find(parked);
      state = found?.waitingOn ? found.state : undefined;
      if (state !== "queued") await new Promise((r) => setTimeout(r, 20));
    }
    expect(await tq.jobs.cancel(parked)).toMatchObject({ state: "cancelled", from: "queued" });
    release();
    await ticking;
    await tq.tick();
    expect(ran).toEqual(["first", "third"]);
  });
});
