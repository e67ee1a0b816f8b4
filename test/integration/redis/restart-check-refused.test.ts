// Restart detection (src/lua/lib/tick/restart-hold.lua) reads LASTSAVE, then INFO server; a managed Redis or an
// ACL may refuse either inside scripts, which turns detection off. Workflow calls and finish then commit as on any
// Redis: no lease taken as lost, no commit refused, and the leases carry no stamp. A private redis-server whose
// default user may not run the command, over TCP and the local REST server in front of it.
import { expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useRefusingRedis } from "../../helpers/refusing-redis.js";
import { uniquePrefix } from "../../helpers/redis.js";

for (const refused of ["lastsave", "info"] as const) {
  const refusing = useRefusingRedis(
    ["--user", "default", "on", "nopass", "~*", "&*", "+@all", `-${refused}`],
    `no-${refused}-redis-token`,
  );

  describeOverAdapters(
    adapterCases.filter((c) => c.name !== "cluster"),
    `a Redis that refuses ${refused.toUpperCase()} in scripts, over $name`,
    (adapterCase) => {
      it("a tick's workflow runs commit every step, no lease lost", async () => {
        const opened = refusing.open(adapterCase.name);
        const warned: string[] = [];
        try {
          const tq = createTickq({
            redis: opened.adapter,
            prefix: uniquePrefix(`restart-refused-${refused}`),
            jobs: {},
            logger: { info: () => {}, warn: (m) => void warned.push(m), error: (m) => void warned.push(m) },
            workflows: {
              two: { run: async (_: null, step) => [await step.run("a", () => 1), await step.run("b", () => 2)] },
            },
          });
          for (let i = 0; i < 3; i++) await tq.workflows.start("two", null);
          const report = await tq.tick({ budgetMs: 3_000 });
          expect(report.leaseLost).toBe(false);
          expect(report.workflows).toMatchObject({ completed: 3, steps: 6, lost: 0 });
          expect(warned).toEqual([]);
        } finally {
          await opened.close();
        }
      });
    },
  );
}
