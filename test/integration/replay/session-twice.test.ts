// session.lua run twice with the same arguments: 'end' leaves one mark (its
// lifetime set again), 'check' writes nothing and answers the same.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

describe.each(adapterCases)("session.lua run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "session-replay");

  it("'end' leaves one mark, 'check' writes nothing", async () => {
    const { callTwice } = scriptCalls(h);
    const ended = await callTwice(protocol.session, { ended: "dashboard:ended:n1" }, { op: "end", ms: 60_000 });
    expect(ended.first).toBe(true);
    expect(Object.keys(ended.after)).toEqual(["dashboard:ended:n1"]);
    const checked = await callTwice(protocol.session, { ended: "dashboard:ended:n2" }, { op: "check", ms: 0 });
    expect(checked.first).toBe(false);
    expect(checked.after).toEqual({ "dashboard:ended:n1": "1" });
  });
});
