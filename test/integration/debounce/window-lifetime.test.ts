// A debounce window lives exactly as long as its job waits in `schedule`:
// however long no tick runs after the due time (a cron every few minutes, a
// daily cron), the next enqueue of the key merges into the waiting job, so
// the key runs once, with the last args. Whatever takes the job out of
// `schedule` (promotion, jobs.delete, jobs.runNow, jobs.cancel) closes the
// window, so the next enqueue opens a new one.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MINUTE = 60_000;

describe.each(adapterCases)("debounce window lifetime over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "debounce-window");
  const window = () => `${h.prefix}debounce:reindex:doc1`;
  const make = (ran: string[][]) =>
    h.make({
      reindex: {
        perform: (args: [string, string]) => void ran.push(args),
        debounce: { key: ([doc]: [string, string]) => doc, delayMs: 50, maxDelayMs: 1_000 },
      },
    });
  /** Redis' clock cannot be moved: the passage of `ms` is taken off the window's TTL instead. */
  const letTimePass = async (ms: number) => {
    const left = await h.redis.pttl(window());
    if (left > ms) await h.redis.pexpire(window(), left - ms);
    else await h.redis.del(window());
  };

  it("a tick an hour after the due time still finds one job: the key runs once, with the last args", async () => {
    const ran: string[][] = [];
    const tq = make(ran);
    const first = await tq.enqueue("reindex", ["doc1", "a"], { kick: false });
    await sleep(80); // due, but no tick runs
    await letTimePass(60 * MINUTE);
    expect(await tq.enqueue("reindex", ["doc1", "b"], { kick: false })).toBe(first);
    await sleep(80);
    await tq.tick();
    expect(ran).toEqual([["doc1", "b"]]);
  });

  it("the tick that moves the job to its queue closes the window: the next enqueue is a new job", async () => {
    const ran: string[][] = [];
    const tq = make(ran);
    const first = await tq.enqueue("reindex", ["doc1", "a"], { kick: false });
    await sleep(80);
    await tq.tick();
    expect(await h.redis.exists(window())).toBe(0);
    const second = await tq.enqueue("reindex", ["doc1", "b"], { kick: false });
    expect(second).not.toBe(first);
    await sleep(80);
    await tq.tick();
    expect(ran).toEqual([
      ["doc1", "a"],
      ["doc1", "b"],
    ]);
  });

  for (const how of ["delete", "runNow", "cancel"] as const) {
    it(`jobs.${how} of the waiting job closes the window: the next enqueue is a new job`, async () => {
      const tq = make([]);
      const first = await tq.enqueue("reindex", ["doc1", "a"], { kick: false });
      await tq.jobs[how](first);
      expect(await h.redis.exists(window())).toBe(0);
      expect(await tq.enqueue("reindex", ["doc1", "b"], { kick: false })).not.toBe(first);
    });
  }

  it('jobs.deleteAll("scheduled") closes the window: the next enqueue is a new job', async () => {
    const tq = make([]);
    const first = await tq.enqueue("reindex", ["doc1", "a"], { kick: false });
    await tq.jobs.deleteAll("scheduled");
    expect(await h.redis.exists(window())).toBe(0);
    expect(await tq.enqueue("reindex", ["doc1", "b"], { kick: false })).not.toBe(first);
  });

  it("a key that JSON escapes (quote, slash, backslash, non-ASCII) has its window closed too", async () => {
    const tq = make([]);
    const doc = 'a"b/c\\d-é';
    const first = await tq.enqueue("reindex", [doc, "a"], { kick: false });
    await tq.jobs.delete(first);
    expect(await h.redis.exists(`${h.prefix}debounce:reindex:${doc}`)).toBe(0);
    expect(await tq.enqueue("reindex", [doc, "b"], { kick: false })).not.toBe(first);
  });

  it("a window is not closed by a plain job leaving schedule, nor by another key's job", async () => {
    const tq = h.make({
      reindex: {
        perform: () => {},
        debounce: { key: ([doc]: [string]) => doc, delayMs: 60_000, maxDelayMs: 60_000 },
      },
      plain: { perform: () => {} },
    });
    const held = await tq.enqueue("reindex", ["doc1"], { kick: false });
    const other = await tq.enqueue("reindex", ["doc2"], { kick: false });
    await tq.enqueue("plain", [], { delayMs: 1, kick: false });
    await sleep(20);
    await tq.tick();
    await tq.jobs.delete(other);
    expect(await h.redis.exists(window())).toBe(1);
    expect(await tq.enqueue("reindex", ["doc1"], { kick: false })).toBe(held);
  });
});
