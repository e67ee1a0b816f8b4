// No ack grows with the size of the jobs it settles: a job over REF_MIN
// bytes is named by its SHA-1 and a failed one carries only its error
// fields, which lib/tick/ack-jobs.lua splices into the stored text. Before, a tick's
// finish carried every job whole (and a failure's updated text besides):
// 12 jobs of 50 MB could not be encoded at all, and the dead-set ack of the
// poison jobs that followed was as large, a loop with no way out.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Outcome } from "../../../src/tick/passes/ack.js";
import { nameJobsByRef, REF_MIN } from "../../../src/tick/passes/ack-refs.js";
import * as protocol from "../../../src/protocol/index.js";
import { encodePart } from "../../../src/protocol/define.js";
import { acks as ackPart } from "../../../src/protocol/sections.js";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { acksOf, jobsOf, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

/** The adapter, recording the bytes of every call's arguments. */
function measured(adapter: RedisAdapter, sizes: number[]): RedisAdapter {
  const size = (keys: string[], args: string[]) => [...keys, ...args].reduce((n, a) => n + Buffer.byteLength(a), 0);
  return {
    evalsha: (sha, keys, args) => (sizes.push(size(keys, args)), adapter.evalsha(sha, keys, args)),
    eval: (script, keys, args) => (sizes.push(size(keys, args)), adapter.eval(script, keys, args)),
  };
}

const BLOB = "b".repeat(200_000);
const LEASE = 5_000;

describe("job references", () => {
  it("are used past the same size by the client and lib/tick/ack-jobs.lua", () => {
    expect(readFileSync("src/lua/lib/tick/ack-jobs.lua", "utf8")).toMatch(
      new RegExp(`^local REF_MIN = ${REF_MIN} `, "m"),
    );
  });
});

describe.each(adapterCases)("acks of large jobs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ack-size");
  const { call, callTwice } = scriptCalls(h);

  it("settles large jobs that succeed, retry, die or cannot be read with calls that stay small", async () => {
    const jobs = {
      keep: () => {},
      flaky: () => {
        throw new Error("flaky failed");
      },
      doomed: {
        perform: () => {
          throw new Error("doomed failed");
        },
        retry: false,
      },
    };
    const client = h.make(jobs);
    await client.enqueueBulk([
      ...[1, 2, 3].map((n) => ({ name: "keep" as const, args: [BLOB, n] })),
      ...[4, 5, 6].map((n) => ({ name: "flaky" as const, args: [BLOB, n] })),
      { name: "doomed" as const, args: [BLOB, 7] },
    ]);
    // written by another client: not JSON, one large, one shaped like a reference
    const unreadable = `not json ${"u".repeat(5_000)}`;
    const refShaped = `#${"ab".repeat(20)}`;
    await h.redis.lpush(`${h.prefix}queue:default`, unreadable, refShaped);
    const stored = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    const original = (n: number) => stored.find((s) => s.includes(`${BLOB}",${n}]`))!;

    const sizes: number[] = [];
    const ticker = h.make(jobs, { redis: measured(h.adapter, sizes) });
    const report = await ticker.tick({ budgetMs: 20_000 });
    expect(report).toMatchObject({ fetched: 9, succeeded: 3, retried: 3, dead: 3 });
    // begin, and the finish that settles all nine: none carries a job
    expect(Math.max(...sizes)).toBeLessThan(64 * 1024);

    expect(await h.redis.keys(`${h.prefix}inproc:*`)).toEqual([]);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(0);
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBe("7"); // the two unreadable ones never ran
    const retried = await h.redis.zrange(`${h.prefix}retry`, "0", "-1");
    expect(retried).toHaveLength(3);
    for (const n of [4, 5, 6]) {
      const entry = retried.find((s) => s.includes(`${BLOB}",${n}]`))!;
      // the stored bytes kept, the error fields appended as the client splices them
      expect(entry.startsWith(original(n).slice(0, -1))).toBe(true);
      expect(JSON.parse(entry)).toMatchObject({
        error_message: "flaky failed",
        error_class: "Error",
        retry_count: 0,
        queue: "default",
      });
      expect(entry).toMatch(/"failed_at":\d+\.\d{3}/);
    }
    const dead = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
    expect(dead).toHaveLength(3);
    const doomed = dead.find((s) => s.includes(`${BLOB}",7]`))!;
    expect(doomed.startsWith(original(7).slice(0, -1))).toBe(true);
    expect(JSON.parse(doomed)).toMatchObject({ error_message: "doomed failed", retry: false });
    const wrapped = dead.filter((s) => s !== doomed).map((s) => JSON.parse(s) as { class: string; raw: string });
    expect(wrapped.map((w) => w.class)).toEqual(["TickqMalformedJob", "TickqMalformedJob"]);
    expect(wrapped.map((w) => w.raw).sort()).toEqual([refShaped, unreadable].sort());
  });

  it("step: acks naming large jobs by reference settle once when run twice", async () => {
    const text = (n: number) =>
      JSON.stringify({ class: "x", args: ["p".repeat(REF_MIN * 2), n], jid: `j${n}`, queue: "default", retry: true });
    const small = JSON.stringify({ class: "x", args: [9], jid: "j9", queue: "default", retry: true });
    await h.redis.lpush(`${h.prefix}queue:default`, text(1), text(2), text(3), text(4), small);
    await h.redis.sadd(`${h.prefix}queues`, "default");
    const begun = await call(
      protocol.begin,
      beginKeys({ tick: "t1", leaseMs: LEASE }),
      beginNamed({ tick: "t1", leaseMs: LEASE }),
    );
    const fetched = jobsOf(begun.fetched);
    expect(fetched).toHaveLength(5);
    const [a, b, c, d, e] = fetched as [never, never, never, never, never];
    await nameJobsByRef(fetched);
    expect(fetched.filter((j) => j.ref !== undefined)).toHaveLength(4);
    const fields = { error_message: "E!", error_class: "Error", retry_count: 0 };
    const outcomes: Outcome[] = [
      { kind: "succeeded", job: a },
      { kind: "succeeded", job: e },
      { kind: "retry", job: b, updated: "", fields, delaySec: 60 },
      { kind: "dead", job: c, updated: "", fields, handlerFailed: true },
      { kind: "unstarted", job: d },
    ];
    const acks = acksOf(outcomes);
    const sent = encodePart(ackPart, acks);
    expect(sent.reduce<number>((n, x) => n + String(x).length, 0)).toBeLessThan(1_000);
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks }),
    );
    expect(first.missed).toEqual([]); // every entry found
    expect(after["stat:processed"]).toBe("4");
    expect(after["stat:failed"]).toBe("2");
    const spliced = (job: { raw: string }) =>
      `${job.raw.slice(0, -1)},"error_message":"E!","error_class":"Error","retry_count":0}`;
    expect(after.retry).toEqual([spliced(b), expect.any(String)]);
    expect(after.dead).toEqual([spliced(c), expect.any(String)]);
    // the one put back was fetched again at once
    expect(after["inproc:t1:default"]).toEqual([(d as { raw: string }).raw]);
  });
});
