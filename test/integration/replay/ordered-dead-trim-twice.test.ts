// An ordered name's dead set is trimmed to the tick's deadMaxSize as ids go dead (lib/ordered/ack-ids.lua,
// through lib/tick/ack-jobs.lua's trim_dead on the name's own set): the oldest go, counted in
// stat:dead_evicted and the reply's deadEvicted. Run twice with the same arguments, the finish trims and
// counts once.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import type { OrderedOutcome } from "../../../src/ordered/work.js";
import { adapterCase } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, idsOf, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs, tickKeys } from "../../helpers/tick-calls.js";

describe("an ordered name's dead set trimmed by a finish, run twice", () => {
  const h = useHarness(adapterCase("ioredis"), "ordered-deadtrim");
  const { call, callTwice } = scriptCalls(h);

  it("keeps the newest deadMaxSize entries and counts the evicted once", async () => {
    await call(
      protocol.ordered_enqueue,
      ORDERED_ENQUEUE_KEYS,
      orderedEnqueueArgs("e", [
        ["a", '"pa"'],
        ["b", '"pb"'],
        ["c", '"pc"'],
      ]),
    );
    // One entry already dead, long before: the first to go.
    await h.redis.zadd(`${h.prefix}o:idx:dead`, 1, '{"id":"old"}');
    const options: BeginOptions = { tick: "t1", leaseMs: 60_000, ordered: ["idx"], batch: 10 };
    const items = idsOf((await call(protocol.begin, beginKeys(options), beginNamed(options))).ordered);
    expect(items.map((x) => x.id).sort()).toEqual(["a", "b", "c"]);
    const outcomes: OrderedOutcome[] = items.map((item) => ({
      kind: "dead",
      item,
      entry: `{"id":"${item.id}"`,
      handlerFailed: true,
    }));
    const args = finishArgs({
      tick: "t1",
      leaseMs: 60_000,
      call: 2,
      deadMaxSize: 2,
      ordered: { names: ["idx"], outcomes },
    });
    const { first, after } = await callTwice(protocol.finish, tickKeys("t1"), args);
    expect(first.deadEvicted).toBe(2);
    expect(after["stat:dead_evicted"]).toBe("2");
    const dead = await h.redis.zrange(`${h.prefix}o:idx:dead`, "0", "-1");
    expect(dead).toHaveLength(2);
    expect(dead.some((entry) => entry.startsWith('{"id":"old"'))).toBe(false);
  });
});
