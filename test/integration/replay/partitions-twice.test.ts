// The partition scripts run twice with the same arguments: the count is
// stored once and answered alike; a migration's mark is set once, with the
// first run's id, and replaced by the new count once; a job is adopted once.
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
    expect(first).toBe("3");
    expect(after.partitions).toBe("3");
    expect(await call(protocol.partitions, { meta: "partitions" }, { count: 5 })).toBe("3");
  });

  it("partition_shape: reads, writes nothing, and answers alike twice", async () => {
    // One Redis: no count stored and no cluster slots.
    const none = await readsCallTwice(protocol.partition_shape, { meta: "partitions" }, {});
    expect(none).toEqual([
      { stored: "", ranges: [] },
      { stored: "", ranges: [] },
    ]);
    await call(protocol.partitions, { meta: "partitions" }, { count: 3 });
    const stored = await readsCallTwice(protocol.partition_shape, { meta: "partitions" }, {});
    expect(stored).toEqual([
      { stored: "3", ranges: [] },
      { stored: "3", ranges: [] },
    ]);
  });

  it("partition_move_begin: marks the move once, keeping the first run's id, and leaves another count alone", async () => {
    await call(protocol.partitions, { meta: "partitions" }, { count: 3 });
    const { first, after } = await callTwice(
      protocol.partition_move_begin,
      { meta: "partitions" },
      { from: 0, to: 5, id: "a1" },
    );
    expect(first).toBe("3>5 a1");
    expect(after.partitions).toBe("3>5 a1");
    // Run again after a cut, with a new id: the mark of the first run stands.
    expect(await call(protocol.partition_move_begin, { meta: "partitions" }, { from: 3, to: 5, id: "b2" })).toBe(
      "3>5 a1",
    );
    expect(await call(protocol.partitions, { meta: "partitions" }, { count: 5 })).toBe("3>5 a1");
    await h.redis.set(`${h.prefix}partitions`, "3");
    expect(await call(protocol.partition_move_begin, { meta: "partitions" }, { from: 4, to: 5, id: "c3" })).toBe("3");
    expect(await call(protocol.partition_move_begin, { meta: "partitions" }, { from: 0, to: 3, id: "c3" })).toBe("3");
    await h.redis.del(`${h.prefix}partitions`);
    expect(await call(protocol.partition_move_begin, { meta: "partitions" }, { from: 0, to: 4, id: "d4" })).toBe(
      "1>4 d4",
    );
  });

  it("partition_move_finish: stores the new count over its own mark once, and over no other", async () => {
    await h.redis.set(`${h.prefix}partitions`, "3>5 a1");
    const { first, after } = await callTwice(
      protocol.partition_move_finish,
      { meta: "partitions" },
      { mark: "3>5 a1", to: 5 },
    );
    expect(first).toBe("5");
    expect(after.partitions).toBe("5");
    await h.redis.set(`${h.prefix}partitions`, "3>6 b2");
    expect(await call(protocol.partition_move_finish, { meta: "partitions" }, { mark: "3>5 a1", to: 5 })).toBe(
      "3>6 b2",
    );
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
