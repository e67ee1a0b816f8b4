// A tick's last call (finish) may reach Redis after its lease ran out: the
// network held it, or the client resent it across a Redis restart. By then
// another tick may have resurrected the jobs it acks and run them again; its
// acks then find nothing. Such a tick must not report its work as settled:
// it reports `leaseLost`, so a caller that reads the report (the chaos
// suite's ledger, an operator) does not count those acks as done.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { holdRequests } from "../../helpers/held-replies.js";

const LEASE_MS = 300;

describe.each(adapterCases)("a finish that reaches Redis after the lease ran out, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "late-finish");

  async function leasesGone() {
    while ((await h.redis.keys(`${h.prefix}tick:*`)).length > 0) await new Promise((r) => setTimeout(r, 20));
  }

  it.each(["plain", "ordered"] as const)(
    "reports leaseLost for its %s job, which another tick ran again",
    async (kind) => {
      const hold = holdRequests(h.adapter, protocol.finish.script);
      const runs: string[] = [];
      const jobs = { work: () => void runs.push("plain") };
      const ordered = { idx: { perform: () => void runs.push("ordered") } };
      const late = h.make(jobs, { redis: hold.adapter, ordered });
      const other = h.make(jobs, { ordered });
      if (kind === "plain") await late.enqueue("work", []);
      else await late.enqueueOrdered("idx", { id: "a", payload: 1 });

      hold.arm();
      const lateTick = late.tick({ leaseMs: LEASE_MS });
      await hold.held();
      await leasesGone();
      await other.tick({ leaseMs: LEASE_MS });
      hold.release();
      const report = await lateTick;

      expect(runs).toEqual([kind, kind]);
      expect(report.leaseLost).toBe(true);
    },
  );

  it("reports no lost lease when its finish comes back in time", async () => {
    const tq = h.make({ work: () => {} });
    await tq.enqueue("work", []);
    const report = await tq.tick({ leaseMs: LEASE_MS });
    expect(report.succeeded).toBe(1);
    expect(report.leaseLost).toBe(false);
  });
});
