// A whole tick over TCP keeps two steps in flight on its connection (lanes
// 'c' and 'd', lib/tick/replay-call.lua); a reply lost after Redis ran the
// step breaks the connection, and ioredis resends both steps in flight. The
// jobs carry no jid (another producer's pushes): every batch holds copies of
// the same texts, so only position tells them apart on a replay. Dropped
// again and again, every job still runs as often as it was pushed.
import { afterEach, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { adapterCases, describeOverAdapters, speaksTcp } from "../../helpers/adapters.js";
import { openDropping, type DroppingAdapter } from "../../helpers/dropping.js";
import { useHarness } from "../../helpers/harness.js";

const QUIET = { info() {}, warn() {}, error() {} };
const tcp = adapterCases.filter((c) => speaksTcp(c.name) && c.name !== "cluster");
const text = (n: number) => JSON.stringify({ class: "work", args: [n], queue: "default" });
const BATCHES = 80;

describeOverAdapters(tcp, "connection lanes with replies dropped over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "connlanes-drops");
  let dropping: DroppingAdapter | undefined;
  afterEach(async () => dropping?.close());

  it("every job without a jid runs as often as it was pushed, whatever replies are lost", async () => {
    dropping = await openDropping(adapterCase.name, h.prefix);
    const runs = new Map<number, number>();
    let started = 0;
    const drops: Promise<boolean>[] = [];
    const jobs = {
      work: async (args: unknown[]) => {
        const n = args[0] as number;
        runs.set(n, (runs.get(n) ?? 0) + 1);
        started++;
        // A drop every 23 jobs: it takes whichever step goes next, with the other one in flight or not.
        if (started % 23 === 0) drops.push(dropping!.dropNext());
        if (started % 3 === 0) await new Promise((r) => setTimeout(r, 1));
      },
    };
    // Batches of five, oldest first: 0, 0, k, -1, -1 — copies of two texts in every batch.
    const pushed = Array.from({ length: BATCHES }, (_, k) => [
      text(0),
      text(0),
      text(k + 1),
      text(-1),
      text(-1),
    ]).flat();
    await h.redis.rpush(`${h.prefix}queue:default`, ...[...pushed].reverse());
    const tq = createTickq({ redis: dropping.adapter, prefix: h.prefix, jobs, logger: QUIET });
    let report = await tq.tick({ batch: 5, concurrency: 4 });
    for (let k = 0; k < 5 && (await h.redis.llen(`${h.prefix}queue:default`)) > 0; k++)
      report = await tq.tick({ batch: 5, concurrency: 4 });
    expect((await Promise.all(drops)).filter(Boolean).length).toBeGreaterThan(10);
    const expected = new Map<number, number>([
      [0, 2 * BATCHES],
      [-1, 2 * BATCHES],
    ]);
    for (let k = 1; k <= BATCHES; k++) expected.set(k, 1);
    expect(new Map([...runs].sort((a, b) => a[0] - b[0]))).toEqual(new Map([...expected].sort((a, b) => a[0] - b[0])));
    expect(report.leaseLost).toBe(false);
    expect(await tq.stats()).toMatchObject({ processed: 5 * BATCHES, inflight: 0 });
  });
});
