// move.lua and cancel.lua naming jobs whose bytes are not valid UTF-8 by "~" + the SHA-1 of their text
// as read and where they were seen (lib/admin/find-as-read.lua), run twice with the same arguments: the
// second run answers the first reply and changes nothing; a new call with the same names finds nothing
// where it was and changes nothing either.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";

/** A job holding `bad` (hex) in its argument, as a foreign client would push it. */
const stored = (n: number, bad = "ff", extra = "") =>
  Buffer.concat([
    Buffer.from(`{"class":"x","args":["a`),
    Buffer.from(bad, "hex"),
    Buffer.from(`"],"jid":"j${n}","queue":"default","retry":1${extra}}`),
  ]);
const plain = (n: number) => `{"class":"x","args":["a"],"jid":"j${n}","queue":"default","retry":1}`;
const nameOf = (job: Buffer) => `~${createHash("sha1").update(new TextDecoder().decode(job), "utf8").digest("hex")}`;
const SCORE = "1900000000.123456";
const QUEUES = { queues: "queues" };
const LEASE = 5_000;

describe.each(adapterCases)("moves and cancels by text as read run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "bad-utf8-moves-twice");
  const { call, callTwice } = scriptCalls(h);
  const bytesOf = {
    list: (key: string) => h.redis.lrangeBuffer(`${h.prefix}${key}`, "0", "-1"),
    set: (key: string) => h.redis.zrangeBuffer(`${h.prefix}${key}`, "0", "-1"),
  };

  it("move: a retry patched into the stored bytes, and deletes from a queue and the schedule, happen once", async () => {
    const dead = stored(1, "eda080", ',"retry_count":3');
    await h.redis.zadd(`${h.prefix}dead`, SCORE, dead, SCORE, plain(2));
    await h.redis.zadd(`${h.prefix}schedule`, SCORE, stored(3, "c080"));
    await h.redis.lpush(`${h.prefix}queue:default`, plain(4), stored(5, "fe"), plain(6));
    await h.redis.sadd(`${h.prefix}queues`, "default");
    const args = (token: string) => ({
      token,
      keepMs: 60_000,
      jobs: [
        { from: "dead", job: nameOf(dead), action: "push", push: '["retry_count","2"]', distance: SCORE },
        { from: "schedule", job: nameOf(stored(3, "c080")), action: "delete", push: "", distance: SCORE },
        { from: "queue:default", job: nameOf(stored(5, "fe")), action: "delete", push: "", distance: "1" },
        // Seen at another score: not looked for elsewhere.
        { from: "dead", job: nameOf(stored(9)), action: "delete", push: "", distance: SCORE },
      ],
    });
    const { first } = await callTwice(protocol.move, QUEUES, args("tok"));
    expect(first).toBe("1110");
    expect(await bytesOf.set("dead")).toEqual([Buffer.from(plain(2))]);
    expect(await bytesOf.set("schedule")).toEqual([]);
    const queue = await bytesOf.list("queue:default");
    expect(queue.slice(1)).toEqual([Buffer.from(plain(6)), Buffer.from(plain(4))]);
    const pushed = queue[0]!;
    expect(pushed.subarray(0, pushed.indexOf(',"enqueued_at"'))).toEqual(
      Buffer.concat([dead.subarray(0, dead.indexOf('"retry_count"')), Buffer.from('"retry_count":2')]),
    );
    // A new call with the same names: nothing is where it was.
    const state = await snapshot(h.redis, h.prefix);
    expect(await call(protocol.move, QUEUES, args("tok2"))).toBe("0000");
    const { "op:tok2": _token, ...rest } = await snapshot(h.redis, h.prefix);
    expect(rest).toEqual(state);
  });

  it("cancel: a retry job and a queued one are taken out and recorded once", async () => {
    const retrying = stored(1, "f4908080");
    const queued = stored(2, "80");
    await h.redis.zadd(`${h.prefix}retry`, SCORE, retrying);
    await h.redis.lpush(`${h.prefix}queue:default`, queued, plain(3));
    await h.redis.sadd(`${h.prefix}queues`, "default");
    const args = (token: string, from: string, job: Buffer, distance: string) => ({
      token,
      keepMs: 60_000,
      jid: "",
      from,
      job: nameOf(job),
      distance,
      tick: "",
    });
    expect((await callTwice(protocol.cancel, QUEUES, args("a", "retry", retrying, SCORE))).first).toBe("cancelled");
    expect((await callTwice(protocol.cancel, QUEUES, args("b", "queue:default", queued, "1"))).first).toBe("cancelled");
    expect(await bytesOf.set("retry")).toEqual([]);
    expect(await bytesOf.list("queue:default")).toEqual([Buffer.from(plain(3))]);
    expect(await h.redis.zcard(`${h.prefix}cancelled`)).toBe(2);
    expect(await h.redis.get(`${h.prefix}stat:cancelled`)).toBe("2");
    expect(await call(protocol.cancel, QUEUES, args("c", "retry", retrying, SCORE))).toBe("gone");
  });

  it("cancel: a job in a tick's list is found there and marked once", async () => {
    const job = stored(1, "c3a9efbfbdfe");
    await h.redis.lpush(`${h.prefix}queue:default`, job);
    await h.redis.sadd(`${h.prefix}queues`, "default");
    await call(protocol.begin, beginKeys({ tick: "t1", leaseMs: LEASE }), beginNamed({ tick: "t1", leaseMs: LEASE }));
    expect(await bytesOf.list("inproc:t1:default")).toEqual([job]);
    const { first } = await callTwice(protocol.cancel, QUEUES, {
      token: "m",
      keepMs: 60_000,
      jid: "j1",
      from: "inproc:default",
      job: nameOf(job),
      distance: "",
      tick: "t1",
    });
    expect(first).toBe("marked");
    expect(await bytesOf.list("inproc:t1:default")).toEqual([job]);
  });
});
