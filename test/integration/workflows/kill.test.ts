// Ticks SIGKILLed at random while they run workflow steps (child processes,
// replaced as they die): every run completes; each step's result is
// committed once, by the last execution that ran it (no step runs again
// after its commit: the ledger of side effects by idempotencyKey); no two
// executions of a run ever overlap (the overlap detector); the fences of a
// run's steps grow.
import { afterEach, describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";
import { spawnTickChild, waitReady, type TickChild } from "../../helpers/tick-children.js";

const TICKS = 3;
const RUNS = 30;
const STEPS = 10;

describe.each(adapterCases)("workflow runs under SIGKILL over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-kill");
  let children: TickChild[] = [];
  afterEach(async () => {
    await Promise.all(children.map((c) => c.kill()));
    children = [];
  });

  it("every run completes, each step committed once, no overlap, fences grow", async () => {
    const spawnTick = () =>
      spawnTickChild("workflow-child.ts", adapterCase, h.redis, h.prefix, {
        LEASE_MS: "1000",
        BUDGET_MS: "2000",
        STEPS: String(STEPS),
        STEP_MS: "120",
      });
    children = Array.from({ length: TICKS }, spawnTick);
    await waitReady(h.redis, h.prefix, TICKS);
    const tq = h.make({}, { workflows: { chain: { run: async () => [] as number[] } } }); // starts and reads only
    const ids = await Promise.all(
      Array.from({ length: RUNS }, (_, i) => tq.workflows.start("chain", { run: `r${i}` }, { id: `r${i}` })),
    );

    let kills = 0;
    const done = async () => (await tq.stats()).workflows.chain?.completed === RUNS;
    const until = Date.now() + 90_000;
    while (!(await done()) && Date.now() < until) {
      await sleep(150 + Math.random() * 300);
      if (kills < 8) {
        const victim = Math.floor(Math.random() * children.length);
        await children[victim]!.kill();
        children[victim] = spawnTick();
        kills++;
      }
    }
    expect((await tq.stats()).workflows.chain).toMatchObject({ completed: RUNS, running: 0, failed: 0 });
    expect(kills).toBeGreaterThan(3);

    const effects = (await h.redis.lrange(`${h.prefix}test:effects`, 0, -1)).map(
      (e) => JSON.parse(e) as { key: string; fence: number },
    );
    for (const id of ids) {
      const run = (await tq.workflows.get(id))!;
      const fences = run.output as number[];
      expect(fences).toHaveLength(STEPS);
      expect(run.steps.map((s) => s.result)).toEqual(fences);
      fences.forEach((fence, i) => {
        // The committed result is the last execution of the step: none ran it after the commit.
        const ran = effects.filter((e) => e.key === `${id.length}:${id}:step:s${i}`).map((e) => e.fence);
        expect(ran.length).toBeGreaterThan(0);
        expect(Math.max(...ran)).toBe(fence);
        if (i > 0) expect(fence).toBeGreaterThanOrEqual(fences[i - 1]!);
      });
    }
    expect(await h.redis.lrange(`${h.prefix}test:overlaps`, 0, -1)).toEqual([]);
  }, 120_000);
});
