// ordered_enqueue writes the due times of a call's new ids in one ZADD per key, an LT group of one due
// in descending member order (a listpack zset then inserts each at its head): the order changes
// nothing. Run twice with the same arguments, each id is in `ready` once, at its lowest due, and the
// second run adds nothing. An LT group of 16 ids or more into a small `ready` goes in as a set
// (SADD to a key of the call's own, ZUNIONSTORE with MIN, DEL): the same members at the same dues.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";

const ids = ["m", "b", "z", "a", "q", "b", "c"];

describe.each(adapterCases)("ordered_enqueue's due times, run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-enqueue-due-replay");
  const { callTwice } = scriptCalls(h);
  const args = (token: string, delays: number[]) => ({
    token,
    tokenMs: 60_000,
    payloads: ids.map((id, k) => ({ name: "idx", id, payload: String(k), score: "", delayMs: delays[k]! })),
  });
  const ready = (after: Record<string, unknown>) => {
    const flat = after["o:idx:ready"] as string[];
    return Object.fromEntries(flat.flatMap((v, i) => (i % 2 === 0 ? [[v, Number(flat[i + 1])]] : [])));
  };

  it("one due for every id: each id once, at that due, in member order", async () => {
    const { first, after } = await callTwice(
      protocol.ordered_enqueue,
      { names: "ordered" },
      args(
        "one",
        ids.map(() => 0),
      ),
    );
    expect(first).toBe("1111111");
    const due = ready(after);
    expect(Object.keys(due)).toEqual(["a", "b", "c", "m", "q", "z"]);
    expect(new Set(Object.values(due)).size).toBe(1);
  });

  it("mixed delays: each id at its lowest due, as one ZADD per payload would leave it", async () => {
    const delays = [5_000, 9_000, 0, 7_000, 3_000, 1_000, 2_000];
    const { after } = await callTwice(protocol.ordered_enqueue, { names: "ordered" }, args("mixed", delays));
    const due = ready(after);
    const now = due.z!; // delay 0
    expect(due).toEqual({ m: now + 5_000, b: now + 1_000, z: now, a: now + 7_000, q: now + 3_000, c: now + 2_000 });
  });

  it("20 new ids of one due, out of member order and one twice: each once at that due, as a set, run twice", async () => {
    const list = Array.from({ length: 20 }, (_, k) => `n${(k * 7) % 20}`).reverse();
    list.push(list[3]!);
    const { first, after } = await callTwice(
      protocol.ordered_enqueue,
      { names: "ordered" },
      {
        token: "unsorted",
        tokenMs: 60_000,
        payloads: list.map((id, k) => ({ name: "idx", id, payload: String(k), score: "", delayMs: 0 })),
      },
    );
    expect(first).toBe("1".repeat(21));
    const due = ready(after);
    expect(Object.keys(due)).toEqual([...new Set(list)].sort());
    expect(new Set(Object.values(due)).size).toBe(1);
    expect(Object.keys(after).filter((key) => key.endsWith("-add"))).toEqual([]);
    expect(await h.redis.object("ENCODING", `${h.prefix}o:idx:ready`)).toBe("listpack");
  });

  it("40 ids of one due, some already waiting earlier or later: each at its lowest due, as a set, nothing left over", async () => {
    const { call, callTwice } = scriptCalls(h);
    const named = (letter: string) => Array.from({ length: 10 }, (_, k) => `${letter}${k}`);
    const [early, late, fresh] = [named("a"), named("b"), [...named("c"), ...named("d")]];
    const payloads = (token: string, list: string[], delayMs: number) => ({
      token,
      tokenMs: 60_000,
      payloads: list.map((id) => ({ name: "idx", id, payload: `"${token}"`, score: "", delayMs })),
    });
    await call(protocol.ordered_enqueue, { names: "ordered" }, payloads("early", early, 0));
    await call(protocol.ordered_enqueue, { names: "ordered" }, payloads("late", late, 600_000));
    const before = ready((await snapshot(h.redis, h.prefix)) as Record<string, unknown>);
    const { first, after } = await callTwice(
      protocol.ordered_enqueue,
      { names: "ordered" },
      payloads("set", [...early, ...late, ...fresh], 60_000),
    );
    expect(first).toBe("1".repeat(40));
    const due = ready(after);
    expect(Object.keys(due).sort()).toEqual([...early, ...late, ...fresh].sort());
    const at = due.c0!;
    for (const id of early) expect(due[id], id).toBe(before[id]);
    for (const id of [...late, ...fresh]) expect(due[id], id).toBe(at);
    expect(at).toBeLessThan(before.b0!);
    expect(Object.keys(after).filter((key) => key.endsWith("-add"))).toEqual([]);
    expect(await h.redis.object("ENCODING", `${h.prefix}o:idx:ready`)).toBe("listpack");
  });
});
