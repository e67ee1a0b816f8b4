// A dead tick's solo record ("o" NAME ID, src/ordered/in-tick.ts soloMarker) names a well-formed id that
// holds U+FFFD, and the tick also held an id of bytes that are not UTF-8 that reads alike ("a\xff" reads
// "a\uFFFD"): the death counts for the id stored as the record names it, not for the other
// (lib/ordered/resurrect-ids.lua ran_alone: a record read as an id's reading only names an id no held
// field matches exactly).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCase } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { moveUnderRawId } from "../../helpers/foreign-ordered-id.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { idsOf } from "../../helpers/tick-calls.js";

const READ = "a\uFFFD";
const RAW = Buffer.from([0x61, 0xff]);

describe("a death while a well-formed id holding U+FFFD ran alone", () => {
  const h = useHarness(adapterCase("ioredis"), "ordered-solo-exact");
  const { call } = scriptCalls(h);

  it("counts for that id, not for an id of other bytes that reads alike", async () => {
    const enqueuer = h.make({}, { ordered: { idx: { perform: () => undefined } } });
    await enqueuer.enqueueOrdered("idx", { id: "x", payload: 1 });
    const p = h.prefix;
    await moveUnderRawId(h.redis, p, "idx", "x", RAW);
    await enqueuer.enqueueOrdered("idx", { id: READ, payload: 2 });
    const options: BeginOptions = { tick: "t1", leaseMs: 300, ordered: ["idx"], batch: 10 };
    const items = idsOf((await call(protocol.begin, beginKeys(options), beginNamed(options))).ordered);
    expect(items.map((x) => x.id)).toEqual([READ, READ]);
    await h.redis.hset(`${p}solo`, "t1", `oidx ${READ}`);
    await new Promise((r) => setTimeout(r, 400));
    const tq = h.make({}, { queues: ["elsewhere"] });
    expect(await tq.tick()).toMatchObject({ resurrected: 2 });
    expect(await h.redis.hget(`${p}o:idx:resurrections`, READ)).toBe("1");
    expect(await h.redis.hgetBuffer(`${p}o:idx:resurrections`, RAW)).toBeNull();
  });
});
