// The jobs API and until-executed / coalesce claims. A claim must end with
// the job that holds it, however the job leaves (deleted one by one, a
// queue emptied, filtered or not); else every later enqueue of the key is
// answered the jid of a job that no longer exists, forever (a stranded
// lock). And a job that comes back (retried from the dead set) holds its
// key again, so a duplicate is answered its jid rather than queued beside it.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

type Args = [key: string];
const jobs = (perform: () => void) => ({
  sync: { perform, retry: false, uniqueKey: ([key]: Args) => key },
});

describe.each(adapterCases)("claims and the jobs API over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-admin-claims");

  for (const unique of ["until-executed", "coalesce"] as const) {
    for (const how of ["delete", "deleteAll", "deleteAll by name"] as const) {
      it(`${unique}: ${how} of the queued holder ends its claim`, async () => {
        const tq = h.make(jobs(() => {}));
        const gone = await tq.enqueue("sync", ["k"], { unique });
        if (how === "delete") await tq.jobs.delete(gone);
        else
          await tq.jobs.deleteAll("queued", {
            queue: "default",
            ...(how === "deleteAll by name" ? { name: "sync" } : {}),
          });
        expect((await tq.stats()).queues.default ?? 0).toBe(0);
        const next = await tq.enqueue("sync", ["k"], { unique });
        expect(next).not.toBe(gone);
        expect((await tq.stats()).queues.default).toBe(1);
      });
    }
  }

  it("until-executed: a dead job retried from the dead set holds its key again", async () => {
    const tq = h.make(
      jobs(() => {
        throw new Error("boom");
      }),
    );
    const jid = await tq.enqueue("sync", ["k"], { unique: "until-executed" });
    expect(await tq.tick({ budgetMs: 1_000 })).toMatchObject({ dead: 1 });
    await tq.jobs.retry(jid);
    expect((await tq.stats()).queues.default).toBe(1);
    expect(await tq.enqueue("sync", ["k"], { unique: "until-executed" })).toBe(jid);
    expect((await tq.stats()).queues.default).toBe(1);
  });
});
