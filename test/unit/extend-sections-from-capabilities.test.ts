// The lease's extend carries ctx.progress values and the cancels a tick heard:
// once the tick core's own fields, now the results and cancel capabilities'
// sections (tick/capability.ts). Their ARGV must be the bytes the core sent
// before, for any mix of both (extend.lua reads `heard` after a progress
// section, so heard jids need an empty one), and a failed extend must put
// back what it took, as before.
import { describe, expect, it } from "vitest";
import { cancelCapability } from "../../src/cancel/in-tick.js";
import { CancelWatch } from "../../src/cancel/watch.js";
import { encode } from "../../src/protocol/define.js";
import * as protocol from "../../src/protocol/index.js";
import { resultsCapability } from "../../src/results/in-tick.js";
import { resultSettings } from "../../src/results/settings.js";
import { tickParts } from "../../src/tick/parts.js";

const keys = { lease: "P:tick:t1" };
const head = { tickId: "t1", leaseMs: 5_000, load: "" };

/** A seeded generator (mulberry32): the same calls on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The extend ARGV as src/tick/lease.ts built it before the capabilities sent these sections. */
function before(progress: [string, string][], heard: string[]) {
  return encode(protocol.extend, keys, {
    ...head,
    progress:
      progress.length === 0 && heard.length === 0 ? undefined : progress.map(([jid, value]) => ({ jid, value })),
    heard: heard.length === 0 ? undefined : heard,
  });
}

describe("extend's progress and heard sections, sent by the results and cancel capabilities", () => {
  it("are the bytes the tick core sent, over 3,000 random calls, and go back when the call fails", () => {
    const next = random(41);
    for (let call = 0; call < 3_000; call++) {
      const cancels = new CancelWatch();
      const progress = new Map<string, string>();
      const runtime = { cancels, progress, results: resultSettings(undefined, undefined) } as never;
      const signal = new AbortController().signal;
      const parts = tickParts([cancelCapability(runtime), resultsCapability(runtime)], {
        tickId: "t1",
        concurrency: 4,
        batch: 4,
        leaseMs: 5_000,
        graceMs: 1_000,
        signal,
      });
      const values = Math.floor(next() * 4);
      for (let k = 0; k < values; k++) progress.set(`j${k}`, JSON.stringify({ done: Math.floor(next() * 100) }));
      const heard = Array.from({ length: Math.floor(next() * 4) }, (_, k) => `c${k}`);
      cancels.learn("t1", heard);
      const expected = before([...progress], heard);
      const snapshot = [...progress];

      const sent = encode(protocol.extend, keys, { ...parts.merged((part) => part.extendArgs?.()), ...head });
      expect(sent).toEqual(expected);
      expect(progress.size).toBe(0);
      expect(cancels.hasHeard("t1")).toBe(false);

      parts.extended(undefined);
      expect([...progress]).toEqual(snapshot);
      expect(cancels.takeHeard("t1")).toEqual(heard);
      parts.stop();
    }
  });
});
