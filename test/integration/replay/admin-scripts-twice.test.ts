// The jobs API's scripts, each run twice with the same arguments: state
// changes leave the state of one run and answer the first reply again (the
// call token); reads change nothing.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";

const job = (n: number, queue = "default") =>
  JSON.stringify({ class: "x", args: [n, 1.0, []], jid: `j${n}`, queue, retry: true, retry_count: 3 });

describe.each(adapterCases)("each jobs API script run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "admin-replay");
  const { call, callTwice, readsCallTwice } = scriptCalls(h);
  type MoveJob = { from: string; job: string; action: string; push?: string; distance?: string };
  const move = (token: string, jobs: MoveJob[]) => ({
    token,
    keepMs: 60_000,
    jobs: jobs.map((j) => ({ push: "", distance: "", ...j })),
  });
  const QUEUES = { queues: "queues" };

  async function seed() {
    await h.redis.zadd(`${h.prefix}dead`, 1, job(1), 2, job(2));
    await h.redis.zadd(`${h.prefix}schedule`, 3, job(3, "later"));
    await h.redis.lpush(`${h.prefix}queue:default`, job(4), job(5), job(6));
    await h.redis.sadd(`${h.prefix}queues`, "default");
  }

  it("move: a resent retry, run-now and delete move nothing more", async () => {
    await seed();
    const retried = job(1).replace('"retry_count":3', '"retry_count":2');
    const { first, after } = await callTwice(
      protocol.move,
      QUEUES,
      move("tok", [
        { from: "dead", job: job(1), action: "push", push: retried },
        { from: "schedule", job: job(3, "later"), action: "push" },
        { from: "queue:default", job: job(5), action: "delete", distance: "1" },
        { from: "dead", job: job(9), action: "delete" },
      ]),
    );
    expect(first).toBe("1110");
    // pushed jobs get enqueued_at (the move's time), spliced after their own bytes
    const stamped = (text: string) =>
      expect.stringMatching(
        new RegExp(`^${text.slice(0, -1).replace(/[[\]{}().*+?^$|\\]/g, "\\$&")},"enqueued_at":\\d+\\.\\d{3}}$`),
      );
    expect(after["queue:default"]).toEqual([stamped(retried), job(6), job(4)]);
    expect(after["queue:later"]).toEqual([stamped(job(3, "later"))]);
    expect(after.dead).toEqual([job(2), "2"]);
    expect(after.schedule).toBeUndefined();
    // without the token (a new call with the same jobs), nothing is where it was: nothing moves
    const state = await snapshot(h.redis, h.prefix);
    expect(
      await call(protocol.move, QUEUES, move("tok2", [{ from: "dead", job: job(1), action: "push", push: retried }])),
    ).toBe("0");
    const { "op:tok2": _token, ...rest } = await snapshot(h.redis, h.prefix);
    expect(rest).toEqual(state);
  });

  it("move: a deleted or pushed queued job takes its counts and suspect mark with it, once", async () => {
    await seed();
    for (const hash of ["resurrections", "interruptions", "suspects", "doubts"])
      await h.redis.hset(`${h.prefix}${hash}`, job(5), 1, job(6), 1, job(4), 1);
    const { first, after } = await callTwice(
      protocol.move,
      QUEUES,
      move("tok", [
        { from: "queue:default", job: job(5), action: "delete", distance: "1" },
        { from: "queue:default", job: job(6), action: "push" },
      ]),
    );
    expect(first).toBe("11");
    for (const hash of ["resurrections", "interruptions", "suspects", "doubts"])
      expect(after[hash]).toEqual({ [job(4)]: "1" });
  });

  it("move: an unroutable job stays where it is", async () => {
    await h.redis.zadd(`${h.prefix}dead`, 1, '{"class":"TickqMalformedJob","args":[],"jid":"m","queue":""}');
    const { first, after } = await callTwice(
      protocol.move,
      QUEUES,
      move("tok", [
        { from: "dead", job: '{"class":"TickqMalformedJob","args":[],"jid":"m","queue":""}', action: "push" },
      ]),
    );
    expect(first).toBe("u");
    expect(after.dead).toHaveLength(2);
  });

  it("clear: a resent call deletes nothing that arrived since", async () => {
    await seed();
    const clear = { token: "tok", keepMs: 60_000 };
    const { first } = await callTwice(protocol.clear, { set: "dead" }, clear);
    expect(first).toBe(2);
    await h.redis.zadd(`${h.prefix}dead`, 5, job(7));
    expect(await call(protocol.clear, { set: "dead" }, clear)).toBe(2);
    expect(await h.redis.zcard(`${h.prefix}dead`)).toBe(1);
  });

  it("pause: pausing or resuming twice is doing it once", async () => {
    const { after } = await callTwice(protocol.pause, { paused: "paused" }, { queue: "mail", paused: true });
    expect(after.paused).toEqual(["mail"]);
    const resumed = await callTwice(protocol.pause, { paused: "paused" }, { queue: "mail", paused: false });
    expect(resumed.after.paused).toBeUndefined();
  });

  it("locate, page, inflight, queues, history: read only", async () => {
    await seed();
    await h.redis.hset(`${h.prefix}ticks`, "t1", "0 1000 default");
    await h.redis.lpush(`${h.prefix}inproc:t1:default`, job(8));
    const noCursor = { at: "", jid: "", near: "", nearJid: "" };
    const page = { name: "", queue: "", budget: 100, cursor: noCursor };
    const reads: (() => Promise<[unknown, unknown]>)[] = [
      () =>
        readsCallTwice(
          protocol.locate,
          { queues: "queues", ticks: "ticks" },
          { jid: "j4", budget: 100, stage: "", position: "0" },
        ),
      () => readsCallTwice(protocol.page, { set: "dead" }, { ...page, kind: "z", order: "desc", limit: 10 }),
      () => readsCallTwice(protocol.page, { set: "queue:default" }, { ...page, kind: "l", order: "asc", limit: 2 }),
      () => readsCallTwice(protocol.inflight, { ticks: "ticks" }, { limit: 100 }),
      () => readsCallTwice(protocol.queues, { queues: "queues", paused: "paused" }, {}),
      () => readsCallTwice(protocol.history, { processed: "stat:processed" }, { days: 3 }),
    ];
    for (const read of reads) {
      const [first, second] = await read();
      expect(second).toEqual(first);
    }
  });
});
