// A job sent to the dead set without running (here: interrupted by tick
// deadlines maxResurrections times) is not counted as processed or failed,
// and its dead entry carries its reason whether the ack names it by its text
// or, past REF_MIN bytes, by reference.
import { describe, expect, it } from "vitest";
import { REF_MIN } from "../../../src/tick/passes/ack-refs.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("a job dead without running, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "unrun-dead");

  it.each([
    ["small", 10],
    ["large", REF_MIN * 2],
  ] as const)("a %s one is dead with its reason and counts as neither processed nor failed", async (_size, bytes) => {
    const tq = h.make({ work: (_args: [string]) => {} }, { maxResurrections: 2 });
    await tq.enqueue("work", ["x".repeat(bytes)]);
    const [raw] = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    await h.redis.hset(`${h.prefix}interruptions`, raw!, 2);
    expect(await tq.tick()).toMatchObject({ dead: 1, succeeded: 0 });
    const [dead] = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
    expect(JSON.parse(dead!)).toMatchObject({ error_class: "TickqDeadlineExceeded" });
    expect(await tq.stats()).toMatchObject({ processed: 0, failed: 0, dead: 1 });
  });
});
