// On a Redis Cluster, moving the slot of a prefix's keys to another master (resharding: MIGRATE
// moves each key whole, nothing is forgotten) is no restart: a tick whose keys move while its job
// runs keeps its lease, and no hold of exclusive work begins. The restart check
// (src/lua/lib/tick/restart-hold.lua) names a Redis by INFO's run_id, which differs on the new master:
// it took the move for a restart (leaseLost, and a hold of 30 s or more). A failover still counts as
// one: failover-is-a-restart-on-cluster.test.ts.
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { slotOf } from "../../../src/partitions/layout.js";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { useClusterClients } from "../../helpers/private-cluster.js";

const cc = useClusterClients();

/** Moves `slot` from its master to another, as `redis-cli --cluster reshard` does: keys by MIGRATE, then the slot. */
async function moveSlot(slot: number): Promise<{ from: string; to: string }> {
  const masters = cc.cluster.nodes.map(({ host, port }) => new Redis({ host, port }));
  try {
    const ids = await Promise.all(masters.map((m) => m.call("CLUSTER", "MYID") as Promise<string>));
    const owners = (await masters[0]!.call("CLUSTER", "SLOTS")) as [number, number, [string, number, string]][];
    const owner = owners.find(([low, high]) => low <= slot && slot <= high)![2][2];
    const k = ids.indexOf(owner);
    const source = masters[k]!;
    const target = masters[(k + 1) % masters.length]!;
    const targetId = ids[(k + 1) % masters.length]!;
    const { host, port } = cc.cluster.nodes[(k + 1) % masters.length]!;
    // Its LASTSAVE another second than the source's, as masters' are in production (these started together).
    const before = Number(await target.lastsave());
    while (Math.floor(Date.now() / 1000) <= before) await new Promise((r) => setTimeout(r, 50));
    await target.bgsave();
    while (Number(await target.lastsave()) === before) await new Promise((r) => setTimeout(r, 20));
    await target.call("CLUSTER", "SETSLOT", slot, "IMPORTING", owner);
    await source.call("CLUSTER", "SETSLOT", slot, "MIGRATING", targetId);
    for (;;) {
      const keys = (await source.call("CLUSTER", "GETKEYSINSLOT", slot, 100)) as string[];
      if (keys.length === 0) break;
      await source.call("MIGRATE", host, port, "", 0, 5_000, "KEYS", ...keys);
    }
    for (const m of masters) await m.call("CLUSTER", "SETSLOT", slot, "NODE", targetId);
    return { from: owner, to: targetId };
  } finally {
    for (const m of masters) m.disconnect();
  }
}

it("a tick whose keys move to another master mid-job keeps its lease and holds nothing back", async () => {
  const prefix = `{mig-${Date.now().toString(36)}}:`;
  const warnings: string[] = [];
  let moved: { from: string; to: string } | undefined;
  const tq = createTickq({
    redis: ioredisAdapter(cc.client),
    prefix,
    logger: { info: () => {}, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) },
    jobs: {
      reshard: async () => {
        moved = await moveSlot(slotOf(prefix));
        // Past an extend of the lease (a third of it), which runs the restart check on the new master.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
      },
    },
    ordered: { feed: { perform: async () => {} } },
  });
  await tq.tick({ budgetMs: 1_000 }); // the boot record is written on the first master
  await tq.enqueue("reshard", []);
  const report = await tq.tick({ budgetMs: 3_000 });
  expect(moved?.to).not.toBe(moved?.from);
  expect(report).toMatchObject({ succeeded: 1, leaseLost: false });
  const boot = () => cc.client.hgetall(`${prefix}boot`);
  const record = await boot();
  expect(record.moved).toMatch(/^[0-9a-f]{40}>[0-9a-f]{40}$/);
  // No hold: an ordered id is handed out at once on the new master; the check, run again, changes nothing.
  await tq.enqueueOrdered("feed", { id: "a", payload: 1 });
  expect(await tq.tick({ budgetMs: 1_000 })).toMatchObject({ succeeded: 1 });
  // (`sure` and `lease_at` move on their own: a check past the save's second, a lease's hour.)
  const { run, at, node, moved: movedAgain } = await boot();
  expect({ run, at, node, moved: movedAgain }).toEqual({
    run: record.run,
    at: record.at,
    node: record.node,
    moved: record.moved,
  });
  expect(warnings).toEqual([]);
}, 60_000);
