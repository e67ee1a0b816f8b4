// A tick's lease exists once its begin has run. An extend the tick sends
// while begin is still on its way (a slow begin, over HTTP each call its own
// request) can reach Redis first and find no lease: that says nothing of a
// lease the tick never had yet, so the tick must not take it as lost.
import { describe, expect, it } from "vitest";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

/** `adapter`, whose first call on a tick's lease key (its begin) is sent only after `ms`: calls sent meanwhile go first. */
function slowBegin(adapter: RedisAdapter, prefix: string, ms: number): RedisAdapter {
  const seen = new Set<string>();
  const delayed = async (keys: string[]) => {
    const lease = keys.find((key) => key.startsWith(`${prefix}tick:`));
    if (lease === undefined || seen.has(lease)) return;
    seen.add(lease);
    await sleep(ms);
  };
  return {
    ...adapter,
    evalsha: async (sha, keys, args) => (await delayed(keys), adapter.evalsha(sha, keys, args)),
    eval: async (script, keys, args) => (await delayed(keys), adapter.eval(script, keys, args)),
  };
}

describe.each(adapterCases)("an extend that overtakes begin over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "extend-before-begin");

  it("does not lose the tick's lease: the tick runs its jobs", async () => {
    const ran: number[] = [];
    const tq = h.make({ note: async ([i]: [number]) => void ran.push(i) });
    await tq.enqueueBulk([1, 2, 3].map((i) => ({ name: "note" as const, args: [i] as [number] })));
    // Extends are due every cancelCheckMs (20 ms): several go out while begin waits 300 ms.
    const slow = h.make(
      { note: async ([i]: [number]) => void ran.push(i) },
      { redis: slowBegin(h.adapter, h.prefix, 300) },
    );
    const report = await slow.tick({ cancelCheckMs: 20 });
    expect(report).toMatchObject({ leaseLost: false, succeeded: 3 });
    expect(ran.sort()).toEqual([1, 2, 3]);
  });
});
