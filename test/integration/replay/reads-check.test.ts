// The check the read-only scripts' tests rely on (helpers/script-calls.ts
// readsTwice): a script that writes on its first run and never again would
// pass a replay check (the second run changes nothing), so a read is held
// to the state before its first run.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

const writesOnce = { name: "writes-once", text: "redis.call('SET', KEYS[1], 'x', 'NX')\nreturn 1" };
const readsOnly = { name: "reads-only", text: "return redis.call('GET', KEYS[1]) or 0" };

describe.each(adapterCases.slice(0, 1))("the read-only check over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "reads-check");
  const { readsTwice } = scriptCalls(h);

  it("fails a script that writes on its first run only", async () => {
    await expect(readsTwice(writesOnce, ["k"], [])).rejects.toThrow(/the first run wrote/);
  });

  it("passes a script that only reads", async () => {
    await h.redis.set(`${h.prefix}k`, "v");
    expect(await readsTwice(readsOnly, ["k"], [])).toEqual(["v", "v"]);
  });
});
