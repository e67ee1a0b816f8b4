// ctx.fence is read off the fetch's reply by position (src/flow/fences.ts):
// the k-th flow job of the reply has the call's first fence + k. A batch
// that mixes plain jobs, jobs of every flow shape and jobs set aside, over
// two queues, must still give each flow job that runs the fence Lua
// counted for it: distinct, consecutive within the call, in the order the
// jobs started.
import { describe, expect, it } from "vitest";
import type { JobContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("fences by position over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-fences");

  it("a mixed batch: every flow job that starts gets the next fence, plain jobs none", async () => {
    const seen: { name: string; tag: string; fence: number | undefined }[] = [];
    const record =
      (name: string) =>
      ([tag]: [string], ctx: JobContext) =>
        void seen.push({ name, tag, fence: ctx.fence });
    const jobs = {
      plain: record("plain"),
      once: { perform: record("once"), uniqueKey: ([tag]: [string]) => tag.slice(0, 1) },
      pair: { perform: record("pair"), concurrency: { key: () => "shared", limit: 2 } },
      rated: { perform: record("rated"), rateLimit: { key: () => "r", limit: 2, periodMs: 600_000 } },
    };
    const tq = h.make(jobs, { queues: ["a", "b"] });
    // Oldest first in each queue. Keys x and y: the second job of each is set aside (parked) while the first holds it.
    await tq.enqueueBulk([
      { name: "plain", args: ["p1"], queue: "a" },
      { name: "once", args: ["x1"], queue: "a", unique: "while-executing" },
      { name: "once", args: ["x2"], queue: "a", unique: "while-executing" },
      { name: "pair", args: ["c1"], queue: "a" },
      { name: "plain", args: ["p2"], queue: "a" },
      { name: "pair", args: ["c2"], queue: "a" },
      { name: "pair", args: ["c3"], queue: "a" },
      { name: "rated", args: ["r1"], queue: "b" },
      { name: "once", args: ["y1"], queue: "b", unique: "while-executing" },
      { name: "rated", args: ["r2"], queue: "b" },
      { name: "once", args: ["y2"], queue: "b", unique: "while-executing" },
      { name: "rated", args: ["r3"], queue: "b" },
      { name: "plain", args: ["p3"], queue: "b" },
    ]);
    await tq.tick({ batch: 20, concurrency: 20 });
    const started = seen.map((s) => s.tag);
    // x2 and y2 wait on their keys, c3 on the pair's two slots, r3 past the rate limit: all set aside in the one fetch.
    expect(started).toEqual(expect.arrayContaining(["p1", "x1", "c1", "p2", "c2", "r1", "y1", "r2", "p3"]));
    expect(started.length).toBeLessThanOrEqual(12); // x2, y2 and c3 run after their holders, in later fetches of the tick, at most
    const fenceOf = new Map(seen.map((s) => [s.tag, s.fence]));
    for (const tag of ["p1", "p2", "p3"]) expect(fenceOf.get(tag)).toBeUndefined();
    const firstFetch = ["x1", "c1", "c2", "r1", "y1", "r2"]; // the flow jobs that started, queue a then b, oldest first
    const base = fenceOf.get("x1")!;
    expect(firstFetch.map((t) => fenceOf.get(t))).toEqual([0, 1, 2, 3, 4, 5].map((k) => base + k));
    expect(fenceOf.get("r3")).toBeUndefined(); // deferred to the schedule set: not run
    // The parked duplicates, once their holders were done, got later fences of their own.
    await tq.tick({ batch: 20, concurrency: 20 });
    const later = ["x2", "y2", "c3"].map((t) => fenceOf.get(t) ?? seen.find((s) => s.tag === t)?.fence);
    expect(later.every((f) => typeof f === "number" && f > base + 5)).toBe(true);
    expect(new Set(later).size).toBe(3);
    const counter = Number(await h.redis.get(`${h.prefix}flow:fence`));
    const fences = seen.map((s) => s.fence).filter((f): f is number => f !== undefined);
    expect(new Set(fences).size).toBe(fences.length);
    expect(Math.max(...fences)).toBe(counter);
  });
});
