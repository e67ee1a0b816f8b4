// A flow job that failed comes back from the retry set still flow-controlled:
// the failure's fields are spliced into its JSON, and its descriptor must
// still open it, so its retry takes the key's slot again (a duplicate waits
// for it: never two runs of the key at once).
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

type Args = [key: string, tag: string];

describe.each(adapterCases)("a retried flow job over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-retry-slot");

  it("holds its key again on its retry, and a duplicate waits for it", async () => {
    const live = new Map<string, number>();
    const seen: string[] = [];
    let overlap = false;
    const tq = h.make({
      sync: {
        retry: 3,
        backoff: () => 0,
        uniqueKey: ([key]: Args) => key,
        perform: async ([key, tag]: Args, ctx: { attempt: number }) => {
          live.set(key, (live.get(key) ?? 0) + 1);
          overlap ||= live.get(key)! > 1;
          seen.push(`${tag}#${ctx.attempt}`);
          await sleep(30);
          live.set(key, live.get(key)! - 1);
          if (tag === "a" && ctx.attempt === 1) throw new Error("first attempt fails");
        },
      },
    });
    await tq.enqueue("sync", ["k", "a"], { unique: "while-executing" });
    expect(await tq.tick({ budgetMs: 2_000 })).toMatchObject({ retried: 1 });
    const [retried] = await h.redis.zrange(`${h.prefix}retry`, "0", "0");
    expect(retried!.startsWith('{"tickq_flow":')).toBe(true);
    expect((await tq.stats()).retry).toBe(1);
    await tq.enqueue("sync", ["k", "b"], { unique: "while-executing" });
    for (let i = 0; i < 10 && seen.length < 3; i++) await tq.tick({ budgetMs: 2_000, concurrency: 5 });
    expect(seen.sort()).toEqual(["a#1", "a#2", "b#1"]);
    expect(overlap).toBe(false);
    expect((await tq.stats()).flow.sync).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  });
});
