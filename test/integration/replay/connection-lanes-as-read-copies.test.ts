// A job whose bytes are not UTF-8 is acked by '~' .. the SHA-1 of its text as
// read (src/tick/passes/ack-refs.ts), a name that stands for every job read
// the same. In a tick's list over LIST_REWRITE_MAX (lib/tick/ack-jobs.lua) the
// ack must still take the oldest such copy, as it does elsewhere: the newer
// one may be a job a step in the other lane of one connection fetched and
// whose reply was lost, and that step's replay reads its jobs back by
// position (lib/tick/replay-call.lua). Taking the newer copy shifts the list
// under it, and a job of the same length the tick already holds would be
// handed over again.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const KEYS = tickKeys("t1");
// Two jobs whose bytes differ yet read the same (U+FFFD), and a valid one of the same length.
const bytesOf = (inner: number[]) =>
  Buffer.concat([Buffer.from('{"class":"x","args":["'), Buffer.from(inner), Buffer.from('"]}')]);
const NEWER = bytesOf([0xfe]);
const OLDER = bytesOf([0xff]);
const HELD = bytesOf([0x6a]);
const asReadName = (job: Buffer) =>
  `~${createHash("sha1")
    .update(Buffer.from(job.toString("utf8"), "utf8"))
    .digest("hex")}`;

const jobsOf = (reply: { fetched: readonly { jobs: readonly string[] }[] }) => reply.fetched.flatMap((g) => g.jobs);

describe.each(adapterCases)("an ack by text as read in a long list over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "asreadcopies");
  const { call, callTwice } = scriptCalls(h);
  const step = (header: string, batch: number, acked: string[] = []) =>
    stepArgs({ tick: "t1", leaseMs: LEASE, call: header, batch, acks: rawAcks({ default: acked }) });

  it("takes the oldest copy, so a replay of the other lane's step answers its own job, not one held", async () => {
    const list = `${h.prefix}inproc:t1:default`;
    // Oldest first: OLDER and HELD go to the tick at begin, NEWER to the first lane step.
    await h.redis.rpush(`${h.prefix}queue:default`, NEWER, HELD, OLDER);
    const options = { tick: "t1", leaseMs: LEASE, batch: 2 };
    await call(protocol.begin, beginKeys(options), beginNamed(options));
    // The tick holds more jobs than the list rewrite takes (LIST_REWRITE_MAX), all older.
    const fillers = Array.from({ length: 4_001 }, (_, i) => JSON.stringify({ class: "f", args: [i] }));
    await h.redis.rpush(list, ...fillers);
    const c = await call(protocol.step, KEYS, step("2c/0/0", 1));
    expect(jobsOf(c)).toEqual([NEWER.toString("utf8")]);
    // The other lane acks the tick's copy (OLDER, the same name) before c's reply is read; run
    // twice with the same arguments, the second run finds it acked and changes nothing.
    await callTwice(protocol.step, KEYS, step("3d/0/0", 0, [asReadName(OLDER)]));
    expect((await h.redis.lrangeBuffer(list, 0, 1)).map((b) => b.toString("hex"))).toEqual(
      [NEWER, HELD].map((b) => b.toString("hex")),
    );
    // The connection broke before c's reply was read: ioredis resends it.
    const again = await call(protocol.step, KEYS, step("2c/0/0", 1));
    expect(jobsOf(again)).toEqual(jobsOf(c));
  });
});
