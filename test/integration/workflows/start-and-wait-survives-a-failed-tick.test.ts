// tq.workflows.startAndWait whose tick fails after its begin started the run (finish refused: a
// Lua error, a partition past the tick's patience): the run exists, so startAndWait goes on from
// it as `result` with drive does, and answers its output. Throwing the tick's error instead left a
// caller with no id (the id is drawn inside) unable to reach the run: one that tries again starts a
// second run, whose steps run again.
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import { scriptSha } from "../../../src/redis/script-sha.js";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

/** The adapter, whose first finish call (by SHA or text) is refused as a script error, before Redis runs it. */
async function refusingFirstFinish(base: RedisAdapter): Promise<{ adapter: RedisAdapter; refused: () => number }> {
  const finishSha = await scriptSha(scripts.finish);
  let refused = 0;
  const refuse = () => {
    refused++;
    return Promise.reject(new Error("ERR Error running script (injected): finish refused once"));
  };
  return {
    refused: () => refused,
    adapter: {
      ...base,
      evalsha: (sha, keys, args) => (sha === finishSha && refused === 0 ? refuse() : base.evalsha(sha, keys, args)),
      eval: (text, keys, args) =>
        text === scripts.finish.text && refused === 0 ? refuse() : base.eval(text, keys, args),
    },
  };
}

describe.each(adapterCases)("startAndWait whose tick fails after begin over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-saw-fail");

  it("answers the run's output, and the run's step ran once", async () => {
    let ran = 0;
    const { adapter, refused } = await refusingFirstFinish(h.adapter);
    const tq = h.make(
      {},
      {
        redis: adapter,
        kick: { tick: { leaseMs: 500 } },
        workflows: { once: { run: async (_: null, step) => step.run("only", () => ++ran) } },
      },
    );
    expect(await tq.workflows.startAndWait("once", null, { timeoutMs: 20_000 })).toBe(1);
    expect(refused()).toBe(1);
    expect(ran).toBe(1);
    const page = await tq.workflows.list();
    expect(page.runs).toHaveLength(1);
  });
});
