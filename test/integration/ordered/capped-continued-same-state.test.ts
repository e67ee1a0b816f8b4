// A step that continues a capped run in place (lib/ordered/continue-runs.lua) must leave the keys as the
// step before it did, which acked the run and then fetched it again from `ready`. Each seed builds random
// states (up to three names, capped 1-3 or not, up to 5 ids of up to 6 payloads, some delayed), then
// runs four steps of random outcomes (successes, retries, put-backs, dead runs, runs left running, acks in
// random order, arrivals, batches 0-5) on two prefixes alike: one with the previous version's step
// (test/fixtures/pre-continuation-scripts.ts), one with this one, the clock frozen in both. After every
// step the replies (each run's payloads, scores and counts, `drained`) and every key must match, but for
// which fence each of a name's continued runs gets: taken all, they may take them in another order.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { decode, encode } from "../../../src/protocol/define.js";
import type { OrderedFetched, OrderedOutcome } from "../../../src/ordered/work.js";
import { runScript } from "../../../src/redis/adapter.js";
import type { LuaScript } from "../../../src/redis/types.js";
import { scripts as before } from "../../fixtures/pre-continuation-scripts.js";
import { adapterCase } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { snapshot } from "../../helpers/snapshot.js";
import { idsOf, ORDERED_ENQUEUE_KEYS, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 60_000;
const SCENARIOS = 60;

type Call = Parameters<typeof encode>[0];

/** The script with Redis' clock frozen (the prefix's `testclock` moves it): both versions read one time. */
const frozen = (script: LuaScript): LuaScript => ({
  ...script,
  text: script.text.split("redis.call('TIME')").join("{ '1700000000', '000000' }"),
});

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Tokens "TICK FENCE DUE" without their fence; runs without theirs, by name and id. */
const withoutFences = (keys: Record<string, unknown>) => {
  const tokens = keys["oinproc:t1"] as Record<string, string> | undefined;
  if (tokens) for (const field of Object.keys(tokens)) tokens[field] = tokens[field]!.replace(/^(\S+) \S+ /, "$1 F ");
  return keys;
};
const runsOf = (runs: OrderedFetched[]) =>
  runs.map(({ fence: _, ...run }) => run).sort((a, b) => `${a.name} ${a.id}`.localeCompare(`${b.name} ${b.id}`));

describe("a capped run continued in place", { timeout: 120_000 }, () => {
  const h = useHarness(adapterCase("ioredis"), "ordered-continued-same");
  const call = async (prefix: string, c: Call, keys: unknown, args: unknown, script?: LuaScript) => {
    const e = encode(c, keys as never, args as never);
    const reply = await runScript(
      h.adapter,
      frozen(script ?? (c as { script: LuaScript }).script),
      e.keys.map((k) => prefix + k),
      [prefix, ...e.args],
      { count: 0 },
      5_000,
    );
    return decode(c, reply) as { ordered: unknown; drained?: number };
  };

  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: every step leaves the keys and answers the runs as an ack then a fetch did`, async () => {
      const r = rng(seed);
      const ri = (a: number, b: number) => a + Math.floor(r() * (b - a + 1));
      let continued = 0;
      for (let n = 0; n < SCENARIOS; n++) {
        const old = `${h.prefix}${n}:old:`;
        const now = `${h.prefix}${n}:new:`;
        const names = [`idx ${ri(1, 3)}`, ...(r() < 0.5 ? [`jdx ${ri(1, 2)}`] : []), ...(r() < 0.3 ? ["kdx"] : [])];
        const plain = names.map((x) => x.split(" ")[0]!);
        const payloads: { name: string; id: string; payload: string; score: string; delayMs: number }[] = [];
        for (const name of plain) {
          for (let i = 0, ids = ri(1, 5); i < ids; i++) {
            for (let k = 0, count = ri(1, 6); k < count; k++) {
              const delayMs = r() < 0.2 ? ri(1, 30) : 0;
              payloads.push({
                name,
                id: "abcde"[i]!,
                payload: `"${name}${i}-${k}"`,
                score: String(ri(1, 50)),
                delayMs,
              });
            }
          }
        }
        const options = { tick: "t1", leaseMs: LEASE, ordered: names, batch: ri(1, 6) };
        const held = new Map<string, OrderedFetched[]>();
        for (const p of [old, now]) {
          await h.redis.set(`${p}testclock`, "0");
          await call(p, protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, { token: "e1", tokenMs: LEASE, payloads });
          await h.redis.set(`${p}testclock`, "40");
          held.set(p, idsOf((await call(p, protocol.begin, beginKeys(options), beginNamed(options))).ordered as never));
        }
        for (let round = 0; round < 4; round++) {
          const arrivals =
            r() < 0.4
              ? [
                  {
                    name: plain[ri(0, plain.length - 1)]!,
                    id: "abcde"[ri(0, 4)]!,
                    payload: `"arr${round}"`,
                    score: String(ri(0, 60)),
                    delayMs: 0,
                  },
                ]
              : [];
          // Outcomes by name and id, each side acking its own runs (their fences may differ).
          const kinds = [...held.get(now)!]
            .sort(() => r() - 0.5)
            .map((item) => {
              const x = r();
              const kind =
                x < 0.1 ? "running" : x < 0.8 ? "succeeded" : x < 0.87 ? "retry" : x < 0.94 ? "unstarted" : "dead";
              return { name: item.name, id: item.id, kind, delayMs: ri(0, 5) };
            });
          const batch = ri(0, 5);
          const clock = String(40 + 10 * (round + 1) + ri(0, 5));
          const answers: { runs: OrderedFetched[]; drained?: number }[] = [];
          const keys: Record<string, unknown>[] = [];
          for (const [p, script] of [
            [old, before.step],
            [now, undefined],
          ] as const) {
            await h.redis.set(`${p}testclock`, clock);
            if (arrivals.length > 0) {
              await call(p, protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, {
                token: `e${round + 2}`,
                tokenMs: LEASE,
                payloads: arrivals,
              });
            }
            const mine = held.get(p)!;
            const outcomes = kinds
              .filter((k) => k.kind !== "running")
              .map((k): OrderedOutcome => {
                const item = mine.find((x) => x.name === k.name && x.id === k.id)!;
                if (k.kind === "retry") return { kind: "retry", item, delayMs: k.delayMs };
                if (k.kind === "dead") return { kind: "dead", item, entry: '{"x":1', handlerFailed: true };
                return { kind: k.kind as "succeeded" | "unstarted", item };
              });
            const args = stepArgs({ tick: "t1", leaseMs: LEASE, call: round + 2, batch, ordered: { names, outcomes } });
            const reply = await call(p, protocol.step, tickKeys("t1"), args, script);
            const runs = idsOf(reply.ordered as never);
            answers.push({ runs, drained: reply.drained });
            const state = await snapshot(h.redis, p);
            delete state["tick:t1"];
            keys.push(withoutFences(state));
            const settled = new Set(outcomes.map((o) => `${o.item.name} ${o.item.id}`));
            held.set(p, [...runs, ...mine.filter((x) => !settled.has(`${x.name} ${x.id}`))]);
          }
          const where = `seed ${seed} scenario ${n} step ${round + 2}`;
          expect(runsOf(answers[1]!.runs), where).toEqual(runsOf(answers[0]!.runs));
          expect(answers[1]!.drained, where).toBe(answers[0]!.drained);
          expect(keys[1], where).toEqual(keys[0]);
          continued += answers[1]!.runs.filter((x) =>
            kinds.some((k) => k.kind === "succeeded" && k.name === x.name && k.id === x.id),
          ).length;
        }
      }
      // The seeds take ids again in the step that acked their success: the case this is about.
      expect(continued).toBeGreaterThan(20);
    });
  }
});
