// The partition scripts run twice with the same arguments: the count is
// stored once and answered alike; a job is adopted once.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

describe.each(adapterCases)("each partition script run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "partitions-replay");
  const { callTwice, call, readsCallTwice } = scriptCalls(h);

  it("partitions: stores the count once and answers it again", async () => {
    const { first, after } = await callTwice(protocol.partitions, { meta: "partitions" }, { count: 3 });
    expect(first).toBe(3);
    expect(after.partitions).toBe("3");
    expect(await call(protocol.partitions, { meta: "partitions" }, { count: 5 })).toBe(3);
  });

  it("partition_shape: reads, writes nothing, and answers alike twice", async () => {
    // One Redis: no count stored and no cluster slots.
    const none = await readsCallTwice(protocol.partition_shape, { meta: "partitions" }, {});
    expect(none).toEqual([
      { stored: -1, ranges: [] },
      { stored: -1, ranges: [] },
    ]);
    await call(protocol.partitions, { meta: "partitions" }, { count: 3 });
    const stored = await readsCallTwice(protocol.partition_shape, { meta: "partitions" }, {});
    expect(stored).toEqual([
      { stored: 3, ranges: [] },
      { stored: 3, ranges: [] },
    ]);
  });

  it("partition_adopt: adopts a job once, even after a tick moved it on", async () => {
    const args = { jid: "j1", score: "0.001", job: '{"jid":"j1","n":1.0}', keepMs: 60_000 };
    const { first, after } = await callTwice(protocol.partition_adopt, { adopted: "adopted", into: "schedule" }, args);
    expect(first).toBe(true);
    expect(after.schedule).toEqual(['{"jid":"j1","n":1.0}', "0.001"]);
    await h.redis.del(`${h.prefix}schedule`);
    await call(protocol.partition_adopt, { adopted: "adopted", into: "schedule" }, args);
    expect(await h.redis.exists(`${h.prefix}schedule`)).toBe(0);
  });
});
