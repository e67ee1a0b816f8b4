// begin's starts (tq.workflows.startAndWait's tick), each call run twice with the same arguments:
// the run is created once and claimed once, with the same fence, and the resent begin answers the
// same `started`; a start whose id another workflow holds creates nothing and says whose it is; at
// maxmemory begin creates no run and says Redis is full, and the tick still begins.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";

const LEASE = 60_000;
const start = (id: string, name = "wf") => ({ id, name, input: '{"n":1}', version: 1 });

describe.each(adapterCases)("workflow starts in begin, each run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-begin-starts");
  const { callTwice, run } = scriptCalls(h);
  const runField = (id: string, field: string) => h.redis.hget(`${h.prefix}wf:run:${id}`, field);

  it("a resent begin creates its run once and claims it once, with the same fence", async () => {
    const { first } = await callTwice(
      protocol.begin,
      beginKeys({ tick: "T", leaseMs: LEASE }),
      beginNamed({ tick: "T", leaseMs: LEASE, workflowClaim: 10, starts: [start("r1")] }),
    );
    expect(first.leaseHeld).toBe(true);
    expect(first.workflows?.started).toEqual({ full: false, holders: ["wf"] });
    expect(first.workflows?.claimed.map((c) => [c.id, c.name, c.input, c.version])).toEqual([
      ["r1", "wf", '{"n":1}', "1"],
    ]);
    expect(await runField("r1", "fence")).toBe(first.workflows?.claimed[0]?.fence);
    expect(await runField("r1", "owner")).toBe("T");
    expect(await runField("r1", "status")).toBe("running");
    expect(await h.redis.zcard(`${h.prefix}wf:all`)).toBe(1);
    expect(await h.redis.zcard(`${h.prefix}wf:due`)).toBe(0);
  });

  it("a start whose id another workflow holds creates nothing, says whose it is, and the tick claims the rest", async () => {
    await run(protocol.workflow_start.script, ["wf:run:taken"], ["taken", "other", "null", "1"]);
    const { first } = await callTwice(
      protocol.begin,
      beginKeys({ tick: "T", leaseMs: LEASE }),
      beginNamed({ tick: "T", leaseMs: LEASE, workflowClaim: 10, starts: [start("taken")] }),
    );
    expect(first.workflows?.started).toEqual({ full: false, holders: ["other"] });
    expect(await runField("taken", "name")).toBe("other");
    expect(await runField("taken", "input")).toBe("null");
    expect(first.workflows?.claimed.map((c) => c.id)).toEqual(["taken"]);
  });

  it("a start of an id its own workflow holds creates nothing again: the run as it was is claimed", async () => {
    await run(protocol.workflow_start.script, ["wf:run:r1"], ["r1", "wf", '"first"', "1"]);
    const { first } = await callTwice(
      protocol.begin,
      beginKeys({ tick: "T", leaseMs: LEASE }),
      beginNamed({ tick: "T", leaseMs: LEASE, workflowClaim: 10, starts: [start("r1")] }),
    );
    expect(first.workflows?.started).toEqual({ full: false, holders: ["wf"] });
    expect(first.workflows?.claimed.map((c) => [c.id, c.input])).toEqual([["r1", '"first"']]);
  });

  it("a begin without starts answers no `started`", async () => {
    const { first } = await callTwice(
      protocol.begin,
      beginKeys({ tick: "T", leaseMs: LEASE }),
      beginNamed({ tick: "T", leaseMs: LEASE, workflowClaim: 10 }),
    );
    expect(first.workflows).toEqual({ claimed: [], more: false });
  });
});
