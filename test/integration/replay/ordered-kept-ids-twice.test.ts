// begin and step keep a copy of their reply for a replay (lib/tick/replay-call.lua); an ordered group's
// ids are kept as the reply joined them when they went as one text (lib/ordered/fetch-ids.lua
// ordered_reply.slim), a list otherwise. Run twice with the same arguments, the replay reads the ids
// back from either and answers the first run's group: the same ids, payloads, scores and fences.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { idsOf, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs } from "../../helpers/tick-calls.js";

describe.each(adapterCases)("an ordered fetch's kept ids, run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-kept-ids-replay");
  const { call, callTwice } = scriptCalls(h);
  const options: BeginOptions = { tick: "t1", leaseMs: 5_000, ordered: ["idx"], batch: 40 };

  it("twenty ids joined in the reply: kept as one text, the replay answers every id with its payloads", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `id ${i} é`);
    await call(
      protocol.ordered_enqueue,
      ORDERED_ENQUEUE_KEYS,
      orderedEnqueueArgs(
        "e",
        ids.map((id, i) => [id, `{"n":${i}}`, String(i + 1)]),
      ),
    );
    const { first } = await callTwice(protocol.begin, beginKeys(options), beginNamed(options));
    const items = idsOf(first.ordered);
    expect(items.map((x) => x.id).sort()).toEqual([...ids].sort());
    for (const x of items) expect(x.payloads).toEqual([`{"n":${ids.indexOf(x.id)}}`]);
    expect(items.map((x) => x.fence)).toEqual(items.map((_, i) => first.ordered![0]!.first + i));
    const kept = (await h.redis.hget(`${h.prefix}tick:t1`, "reply")) ?? "";
    expect(kept).toContain(items.map((x) => x.id).join("\x1e"));
  });

  it("an id holding the separator: the ids are kept as a list, and the replay answers them all", async () => {
    const ids = ["plain", "with\x1esep", "other"];
    await call(
      protocol.ordered_enqueue,
      ORDERED_ENQUEUE_KEYS,
      orderedEnqueueArgs(
        "e",
        ids.map((id, i) => [id, `"${i}"`, String(i + 1)]),
      ),
    );
    const { first } = await callTwice(protocol.begin, beginKeys(options), beginNamed(options));
    const items = idsOf(first.ordered);
    const byId = Object.fromEntries(items.map((x) => [x.id, x.payloads]));
    expect(byId).toEqual(Object.fromEntries(ids.map((id, i) => [id, [`"${i}"`]])));
    const kept = (await h.redis.hget(`${h.prefix}tick:t1`, "reply")) ?? "";
    expect(kept).not.toContain(items.map((x) => x.id).join("\x1e"));
  });
});
