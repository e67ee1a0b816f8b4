// One bulk enqueue over ids in each state: an id new to Redis, one that
// waits, one a tick runs and one backing off after a failed run. The script
// reads whether ids wait once per name and keeps that current as it writes,
// so payloads of one id in one call still sequence, merge and keep a retry's
// backoff as separate calls would.
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("one ordered bulk over ids in every state over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-enqueue-states");

  it("new, waiting, running and backing-off ids each take their payloads as separate calls would", async () => {
    const runs: { id: string; payloads: unknown[] }[] = [];
    let tq!: ReturnType<typeof make>;
    let failOnce = true;
    let sent = false;
    const make = () =>
      h.make(
        {},
        {
          ordered: {
            idx: {
              backoffMs: () => 3_600_000,
              perform: async (id: string, payloads: unknown[], _ctx: OrderedContext) => {
                runs.push({ id, payloads });
                if (id === "retrying" && failOnce) {
                  failOnce = false;
                  throw new Error("first try fails");
                }
                if (id !== "running" || sent) return;
                sent = true;
                await tq.enqueueOrderedBulk([
                  { name: "idx", id: "new", payload: "n1" },
                  { name: "idx", id: "waiting", payload: "w2" },
                  { name: "idx", id: "running", payload: "r2" },
                  { name: "idx", id: "new", payload: "n2" },
                  { name: "idx", id: "waiting", payload: "w1" }, // identical: stored once
                  { name: "idx", id: "running", payload: "r3" },
                  { name: "idx", id: "retrying", payload: "t2" },
                ]);
              },
            },
          },
        },
      );
    tq = make();
    await tq.enqueueOrdered("idx", { id: "retrying", payload: "t1" });
    await tq.tick(); // "retrying" fails and backs off for an hour
    await tq.enqueueOrdered("idx", { id: "waiting", payload: "w1", delayMs: 3_600_000 });
    await tq.enqueueOrdered("idx", { id: "running", payload: "r1" });
    await tq.tick(); // the bulk call runs inside "running"'s execution
    expect(runs.map((r) => r.id)).toEqual(["retrying", "running"]);

    const [seconds] = await h.redis.time();
    const inFromNow = async (id: string) =>
      Number(await h.redis.zscore(`${h.prefix}o:idx:ready`, id)) - Number(seconds) * 1000;
    expect(await inFromNow("retrying")).toBeGreaterThan(3_000_000); // a new payload never cuts a backoff short
    expect(await inFromNow("waiting")).toBeLessThan(60_000); // a waiting id keeps its earliest due time
    expect(await inFromNow("new")).toBeLessThan(60_000);

    for (let i = 0; i < 5 && runs.length < 5; i++) await tq.tick();
    const byId = Object.fromEntries(runs.slice(2).map((r) => [r.id, r.payloads]));
    // new: in the order sent; running: merged into the run after it; waiting: w1 stored once, first
    expect(byId).toEqual({ new: ["n1", "n2"], running: ["r2", "r3"], waiting: ["w1", "w2"] });
    expect((await tq.stats()).ordered.idx).toMatchObject({ waiting: 1, running: 0, payloads: 2 }); // "retrying": t1, t2
  });
});
