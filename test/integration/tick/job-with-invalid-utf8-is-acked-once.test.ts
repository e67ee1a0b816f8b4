// A job whose bytes are not valid UTF-8 (a foreign client's push: Sidekiq from Ruby, redis-cli, a
// Buffer) is read by every adapter with U+FFFD in place of the bad bytes. An ack naming the text it
// read named no job in the tick's list: the job stayed there, was put back when the lease expired and
// ran again, forever. It is now acked once, and what a failure writes keeps the stored bytes.
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

/** Ill-formed sequences of each kind (lib/common/utf8-as-read.lua), beside valid UTF-8 and a real U+FFFD. */
const BAD = ["ff", "80", "c080", "e282", "eda080", "f09f98", "f4908080", "f888808080", "c3a9efbfbdfe"];

/** A Sidekiq-shaped job whose one argument holds `bad` (hex) between ASCII; `pad` makes it large. */
function jobBytes(jid: string, bad: string, extra = "", pad = 0): Buffer {
  const open = `{"class":"x","args":["a`;
  const close = `${"p".repeat(pad)}"],"jid":"${jid}","queue":"default","retry":1${extra}}`;
  return Buffer.concat([Buffer.from(open), Buffer.from(bad, "hex"), Buffer.from(close)]);
}

const push = (redis: Redis, prefix: string, jobs: Buffer[]) =>
  Promise.all([redis.lpush(`${prefix}queue:default`, ...jobs), redis.sadd(`${prefix}queues`, "default")]);

/** The bytes stored under a sorted set, each member as stored. */
const membersOf = async (redis: Redis, key: string) => redis.zrangeBuffer(key, "0", "-1");

describe.each(adapterCases)("a job with invalid UTF-8 over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "bad-utf8");

  it("is acked once, small or large: counted as processed, no inproc list left, never run again", async () => {
    const seen: string[] = [];
    const tq = h.make({ x: { perform: ([arg]: [string]) => void seen.push(arg) } });
    const jobs = [...BAD.map((bad, k) => jobBytes(`s${k}`, bad)), jobBytes("large", "ff", "", 3_000)];
    await push(h.redis, h.prefix, jobs);
    expect(await tq.tick()).toMatchObject({ succeeded: jobs.length });
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBe(String(jobs.length));
    expect(await h.redis.keys(`${h.prefix}inproc:*`)).toEqual([]);
    // The handler read its argument as every client reads it: U+FFFD in place of the bad bytes.
    expect(seen).toContain("a\uFFFD");
    expect(seen).toContain("aé\uFFFD\uFFFD");
    // Nothing is left for a resurrector to put back, even once every lease is gone: no later run.
    for (const lease of await h.redis.keys(`${h.prefix}tick:*`)) await h.redis.del(lease);
    expect(await tq.tick()).toMatchObject({ fetched: 0, succeeded: 0 });
    expect(seen).toHaveLength(jobs.length);
  });

  it("a failure keeps the stored bytes: retry and dead entries are the job with its error fields spliced in", async () => {
    const tq = h.make({
      x: {
        perform: () => {
          throw new Error("failed");
        },
      },
    });
    const retried = jobBytes("r1", "ff");
    const doomed = jobBytes("d1", "eda080", ',"dead":true,"retry_count":24');
    await push(h.redis, h.prefix, [retried, doomed]);
    expect(await tq.tick()).toMatchObject({ retried: 1, dead: 1 });
    expect(await h.redis.keys(`${h.prefix}inproc:*`)).toEqual([]);
    expect(await h.redis.get(`${h.prefix}stat:failed`)).toBe("2");
    const [inRetry] = await membersOf(h.redis, `${h.prefix}retry`);
    const [inDead] = await membersOf(h.redis, `${h.prefix}dead`);
    // Every stored byte up to the fields a failure sets is kept, the bad ones included.
    const upTo = (job: Buffer, field: string) => job.subarray(0, job.indexOf(field));
    expect(upTo(inRetry!, ',"error_message"')).toEqual(retried.subarray(0, -1));
    expect(upTo(inDead!, '"retry_count"')).toEqual(upTo(doomed, '"retry_count"'));
    for (const entry of [inRetry!, inDead!]) {
      expect(JSON.parse(entry.toString("utf8"))).toMatchObject({ error_message: "failed", error_class: "Error" });
    }
  });

  it("one that is not JSON goes to the dead set as malformed, its bytes kept in `raw`", async () => {
    const tq = h.make({ x: () => {} });
    const stored = Buffer.concat([Buffer.from("not json "), Buffer.from("c0ff", "hex")]);
    await push(h.redis, h.prefix, [stored]);
    expect(await tq.tick()).toMatchObject({ dead: 1 });
    expect(await h.redis.keys(`${h.prefix}inproc:*`)).toEqual([]);
    const [entry] = await membersOf(h.redis, `${h.prefix}dead`);
    expect(entry!.includes(stored)).toBe(true);
    expect(JSON.parse(entry!.toString("utf8"))).toMatchObject({ class: "TickqMalformedJob" });
  });
});
