// A batch shared by plain jobs and ordered ids (lib/ordered/fetch-ids.lua fetch_mixed): ordered ids
// take up to half first, plain jobs the rest, then ordered ids whatever plain jobs left. begin reads
// the due ids first and takes them in one take; run twice with the same arguments it answers the
// same jobs and one group of consecutive fences, and leaves the state as the first run left it.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import {
  ENQUEUE_KEYS,
  enqueueArgs,
  idsOf,
  ORDERED_ENQUEUE_KEYS,
  orderedEnqueueArgs,
} from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
const options: BeginOptions = { tick: "t1", leaseMs: LEASE, ordered: ["idx"], batch: 10 };

describe.each(adapterCases)("a batch shared by plain jobs and ordered ids, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-shared-batch");
  const { call, callTwice } = scriptCalls(h);
  async function due(ordered: number, plain: number) {
    const ids = Array.from(
      { length: ordered },
      (_, i) => [`id-${String(i).padStart(2, "0")}`, `"p${i}"`, String(i + 1)] as [string, string, string],
    );
    await call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs("o", ids));
    if (plain > 0)
      await call(
        protocol.enqueue,
        ENQUEUE_KEYS,
        enqueueArgs(
          "p",
          Array.from({ length: plain }, (_, n) => ({ job: job(n) })),
        ),
      );
  }
  /** The members of a sorted set as the snapshot holds it (member, score, …). */
  const members = (zset: unknown) => (zset as string[]).filter((_, k) => k % 2 === 0);
  const plainOf = (reply: { fetched: { jobs: unknown[] }[] }) => reply.fetched.reduce((n, g) => n + g.jobs.length, 0);

  it("ordered ids fill what plain jobs leave past their half: 7 ids and 3 jobs, one group, ids left due", async () => {
    await due(8, 3);
    const { first, after } = await callTwice(protocol.begin, beginKeys(options), beginNamed(options));
    expect(plainOf(first)).toBe(3);
    expect(first.ordered).toHaveLength(1);
    const items = idsOf(first.ordered);
    expect(items.map((x) => x.id)).toEqual(Array.from({ length: 7 }, (_, i) => `id-0${i}`));
    expect(items.map((x) => x.fence)).toEqual(items.map((_, i) => first.ordered![0]!.first + i));
    expect(members(after["o:idx:ready"])).toEqual(["id-07"]);
    expect(after["o:idx:running"]).toBe("7");
    expect(after["o:idx:fence"]).toBe(String(first.ordered![0]!.first + 6));
    expect(first.drained).toBeUndefined();
  });

  it("plain jobs keep the half ordered ids leave them: 5 ids and 5 jobs, the rest of both due", async () => {
    await due(8, 8);
    const { first, after } = await callTwice(protocol.begin, beginKeys(options), beginNamed(options));
    expect(plainOf(first)).toBe(5);
    expect(idsOf(first.ordered).map((x) => x.id)).toEqual(["id-00", "id-01", "id-02", "id-03", "id-04"]);
    expect(members(after["o:idx:ready"])).toEqual(["id-05", "id-06", "id-07"]);
    expect(first.drained).toBeUndefined();
  });

  it("a full batch that took every due id and job says drained: 8 ids and 2 jobs", async () => {
    await due(8, 2);
    const { first, after } = await callTwice(protocol.begin, beginKeys(options), beginNamed(options));
    expect(plainOf(first)).toBe(2);
    expect(idsOf(first.ordered)).toHaveLength(8);
    expect(after["o:idx:ready"]).toBeUndefined();
    expect(first.drained).toBe(1);
  });
});
