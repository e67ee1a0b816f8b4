// session.lua run twice with the same arguments: 'end' leaves one mark (its
// lifetime set again), 'check' writes nothing and answers the same.
import { describe, expect, it } from "vitest";
import { scripts } from "../../../src/lua/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

describe.each(adapterCases)("session.lua run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "session-replay");

  it("'end' leaves one mark, 'check' writes nothing", async () => {
    const { twice } = scriptCalls(h);
    const ended = await twice(scripts.session, ["dashboard:ended:n1"], ["end", 60_000]);
    expect(ended.first).toBe(1);
    expect(Object.keys(ended.after)).toEqual(["dashboard:ended:n1"]);
    const checked = await twice(scripts.session, ["dashboard:ended:n2"], ["check", 0]);
    expect(checked.first).toBe(0);
    expect(checked.after).toEqual({ "dashboard:ended:n1": "1" });
  });
});
