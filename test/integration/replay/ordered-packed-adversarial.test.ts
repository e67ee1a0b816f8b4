// ordered_enqueue's packed payloads (src/protocol/define.ts `packed`) split by one string.match a payload
// in Lua: values holding Lua pattern characters, '%', newlines, NUL, a leading "j", empty values, a
// lone surrogate, a 20 KB id and a 300 KB payload, scores in exponent form, -0 and ±inf, and duplicates
// within the call are stored byte for byte as the counted form (one value each) stores them, and a
// replay of the packed call changes nothing. Each ack then settles every id, packed, run twice.
import { describe, expect, it } from "vitest";
import { encode, JOIN_SEPARATOR } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import type { OrderedOutcome } from "../../../src/ordered/work.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { finishArgs, idsOf, ORDERED_ENQUEUE_KEYS, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 60_000;
const ids = [
  "%",
  "%d+",
  "^$",
  "()",
  "[^\x1f]*",
  "a\nb",
  "a\x00b",
  "j",
  "j11",
  "",
  " ",
  "é😀\ud800",
  "x".repeat(20_000),
  "\x1f",
  "a.b-c*?+",
];
const payloads = ['"%s"', "a\x00b", "", "\n", "y".repeat(300_000), "%1", "\\", "é\ud800", "j3", "()%b()"];
const scores = ["1e3", "-0", "inf", "-inf", "1.5", "-1e-21", "7", "1e21"];
const delays = [0, -0, 5, 1e-7, -3];

/** Payloads of `name`: every id with several payloads, one of them twice (another score), one id twice over. */
function entries(name: string) {
  const out: { name: string; id: string; payload: string; score: string; delayMs: number }[] = [];
  ids.forEach((id, k) => {
    for (let r = 0; r < 2; r++) {
      const at = k + r;
      out.push({
        name,
        id,
        payload: payloads[at % payloads.length]!,
        score: scores[at % scores.length]!,
        delayMs: delays[at % delays.length]!,
      });
    }
    out.push({ name, id, payload: payloads[k % payloads.length]!, score: "2e3", delayMs: 0 });
  });
  return out;
}

describe.each(adapterCases)("packed ordered payloads and acks with odd values over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-packadv");
  const { call, callTwice, run } = scriptCalls(h);

  it("stored byte for byte as the counted form stores them, replayed without change, acked packed", async () => {
    const packedArgs = { token: "e1", tokenMs: 60_000, payloads: entries("pk") };
    const sent = encode(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, packedArgs);
    expect(sent.args[2]).toBe(`j${1 + 5 * packedArgs.payloads.length}`);
    expect(String(sent.args[3])).toContain(JOIN_SEPARATOR);
    const { first } = await callTwice(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, packedArgs);

    // The same payloads under another name, one ARGV value each (what an older release sends).
    const counted = entries("ct").flatMap((e) => [e.name, e.id, e.payload, e.score, e.delayMs]);
    const reply = await run(protocol.ordered_enqueue.script, sent.keys, [
      "e2",
      60_000,
      entries("ct").length,
      ...counted,
    ]);
    expect(reply).toBe(first);

    for (const id of ids) {
      const pk = await h.redis.zrangeBuffer(`${h.prefix}o:pk:p:${id}`, "0", "-1", "WITHSCORES");
      const ct = await h.redis.zrangeBuffer(`${h.prefix}o:ct:p:${id}`, "0", "-1", "WITHSCORES");
      expect(pk.length).toBeGreaterThan(0);
      expect(pk).toEqual(ct);
    }
    expect(await h.redis.get(`${h.prefix}o:pk:payloads`)).toBe(await h.redis.get(`${h.prefix}o:ct:payloads`));
    expect(await h.redis.zrange(`${h.prefix}o:pk:ready`, "0", "-1")).toEqual(
      await h.redis.zrange(`${h.prefix}o:ct:ready`, "0", "-1"),
    );

    // Every id runs (delays of 5 ms past) and its success, packed, settles it; twice changes nothing.
    await new Promise((r) => setTimeout(r, 20));
    const options: BeginOptions = { tick: "t1", leaseMs: LEASE, ordered: ["pk"], batch: 100 };
    const begun = await call(protocol.begin, beginKeys(options), beginNamed(options));
    const items = idsOf(begun.ordered);
    // A lone surrogate went as U+FFFD's bytes (UTF-8 has no other), and is read back as U+FFFD.
    const asStored = ids.map((id) => id.toWellFormed());
    expect(items.map((x) => x.id).sort()).toEqual(asStored.sort());
    const outcomes: OrderedOutcome[] = items.map((item) => ({ kind: "succeeded", item }));
    const args = finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, ordered: { names: ["pk"], outcomes } });
    const ack = encode(protocol.finish, tickKeys("t1"), args).args.map(String);
    expect(ack.some((v) => /^j\d+$/.test(v))).toBe(true);
    const { after } = await callTwice(protocol.finish, tickKeys("t1"), args);
    for (const id of ids) expect(after[`o:pk:p:${id}`]).toBeUndefined();
    expect(after["oinproc:t1"]).toBeUndefined();
    expect(after["o:pk:held"]).toBeUndefined();
    expect(after["o:pk:running"]).toBe("0");
    expect(after["stat:processed"]).toBe(String(ids.length));
  });

  it("a name's ids counted beside a name's packed, then a retry, with metrics: each settled once, twice run", async () => {
    const sep = JOIN_SEPARATOR;
    const enqueue = (name: string, idsOf_: string[]) => ({
      token: `e-${name}`,
      tokenMs: 60_000,
      payloads: idsOf_.map((id) => ({ name, id, payload: `"${name}"`, score: "", delayMs: 0 })),
    });
    await call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, enqueue("n1", [`x${sep}y`, "p"]));
    await call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, enqueue("n2", ["q", "r", "s"]));
    const options: BeginOptions = { tick: "t1", leaseMs: LEASE, ordered: ["n1", "n2"], batch: 10 };
    const begun = await call(protocol.begin, beginKeys(options), beginNamed(options));
    const items = idsOf(begun.ordered);
    expect(items.map((x) => `${x.name}/${x.id}`).sort()).toEqual(["n1/p", `n1/x${sep}y`, "n2/q", "n2/r", "n2/s"]);
    const outcomes: OrderedOutcome[] = items.map((item) =>
      item.id === "s" ? { kind: "retry", item, delayMs: 60_000 } : { kind: "succeeded", item },
    );
    const args = finishArgs({
      tick: "t1",
      leaseMs: LEASE,
      call: 2,
      ordered: { names: ["n1", "n2"], outcomes, metrics: { retentionSec: 60 } },
    });
    // n1 goes counted (an id holds the separator), n2 packed; then the metrics' one entry (the four
    // successes, unmeasured alike), packed.
    const sent = encode(protocol.finish, tickKeys("t1"), args).args.map(String);
    expect(sent.filter((v) => /^j\d+$/.test(v))).toEqual(["j5", "j4"]);
    const { after } = await callTwice(protocol.finish, tickKeys("t1"), args);
    for (const [name, id] of [
      ["n1", `x${sep}y`],
      ["n1", "p"],
      ["n2", "q"],
      ["n2", "r"],
    ])
      expect(after[`o:${name}:p:${id}`]).toBeUndefined();
    expect(after["o:n2:p:s"]).toEqual(['"n2"', expect.any(String)]);
    expect(after["o:n2:retries"]).toEqual({ s: "1" });
    expect((after["o:n2:ready"] as string[])[0]).toBe("s");
    expect(after["oinproc:t1"]).toBeUndefined();
    expect([after["o:n1:running"], after["o:n2:running"]]).toEqual(["0", "0"]);
    expect([after["stat:processed"], after["stat:failed"]]).toEqual(["5", "1"]);
  });
});
