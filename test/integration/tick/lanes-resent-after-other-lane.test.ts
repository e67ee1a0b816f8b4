// A whole tick over HTTP, two steps in flight (lib/tick/replay-call.lua's
// lanes), whose lane a step's reply is lost after Redis ran it, and whose
// client resends it only once a lane b step has fetched in front of its
// jobs, as @upstash/redis retrying after a timeout would. The jobs carry no
// jid (pushed by another producer): each batch starts and ends with jobs of
// the same text, so only the middle job tells batches apart. Every job
// still runs once: the resent step answers its own jobs, not lane b's.
import { expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases, describeOverAdapters, speaksTcp } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const http = adapterCases.filter((c) => !speaksTcp(c.name));
const text = (n: number) => JSON.stringify({ class: "work", args: [n], queue: "default" });
const BATCHES = 60;

describeOverAdapters(http, "a lane step resent after the other lane's over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "lanes-resent");

  it("every job without a jid runs as often as it was pushed; the resent step answers its own jobs", async () => {
    const runs = new Map<number, number>();
    const jobs = {
      work: async (args: unknown[]) => {
        const n = args[0] as number;
        runs.set(n, (runs.get(n) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 2));
      },
    };
    // Batches of three, oldest first: 0, k, -1 — the same texts at both ends of every batch.
    const pushed = Array.from({ length: BATCHES }, (_, k) => [text(0), text(k + 1), text(-1)]).flat();
    await h.redis.rpush(`${h.prefix}queue:default`, ...pushed.reverse());
    let dropped: "waiting" | "done" = "waiting";
    let steps = 0;
    // Lane b steps by the order they were sent among lane steps, and those answered.
    let sentCount = 0;
    const bSent: number[] = [];
    const bAnswered = new Set<number>();
    let bAfterDrop = false;
    const inner = h.adapter;
    const redis: RedisAdapter = {
      ...inner,
      evalsha: async (sha, keys, args) => {
        const lane = /^\d+([ab])\//.exec(args[5] ?? "")?.[1];
        if (lane === undefined) return inner.evalsha(sha, keys, args);
        steps++;
        const sent = ++sentCount;
        if (lane === "b") bSent.push(sent);
        const reply = await inner.evalsha(sha, keys, args);
        if (lane === "b") bAnswered.add(sent);
        if (lane !== "a" || dropped !== "waiting" || steps <= 4) return reply;
        // The reply is lost once a lane b step sent after it ran. Whether one goes while this one is
        // held is the pipeline's call (its lead): a step beside which none went within 100 ms answers,
        // and the next lane a step is tried, so a loaded host changes which step drops, not the case.
        const later = () => bSent.filter((n) => n > sent);
        for (let i = 0; i < 20 && later().length === 0; i++) await new Promise((r) => setTimeout(r, 5));
        if (later().length === 0) return reply;
        for (let i = 0; i < 400 && !later().some((n) => bAnswered.has(n)); i++)
          await new Promise((r) => setTimeout(r, 5));
        bAfterDrop = later().some((n) => bAnswered.has(n));
        dropped = "done";
        throw new Error("fetch failed: socket hang up");
      },
    };
    const tq = createTickq({ redis, prefix: h.prefix, jobs });
    for (let round = 0; round < 10; round++) {
      await tq.tick({ batch: 3, concurrency: 12, budgetMs: 5_000 });
      if ((await h.redis.llen(`${h.prefix}queue:default`)) === 0) break;
    }
    expect(dropped).toBe("done");
    expect(bAfterDrop).toBe(true);
    const middle = [...runs.entries()].filter(([n]) => n > 0);
    expect(middle.filter(([, count]) => count !== 1)).toEqual([]);
    expect(middle).toHaveLength(BATCHES);
    expect(runs.get(0)).toBe(BATCHES);
    expect(runs.get(-1)).toBe(BATCHES);
  });
});
