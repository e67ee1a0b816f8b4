// A flow job whose descriptor is malformed (pushed raw by another client, a
// hand edit, a truncated write) ends in the retry or dead set with its text
// and never crashes the fetch: a fetch that dies after its LTRIM would lose
// every job of the chunk it read, the good ones too.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const job = (descriptor: string, jid: string) =>
  JSON.stringify({ tickq_flow: descriptor, class: "good", args: [jid], jid, queue: "default", retry: true });

const BAD: [string, string][] = [
  ["no bar at all", "garbage"],
  ["an empty descriptor", ""],
  ["no bar after the keys", "good default u|u:k"],
  ["a limit that is no number", "good default l x|c:k|bad"],
  ["an unknown tag", "good default z|k|bad"],
  ["fewer keys than its tags", "good default u r 5 1000|u:k|bad"],
  // Flow control's first, unreleased form ("JID NAME QUEUE l 1 KEY"): unread, but kept whole.
  ["a descriptor of the first form", "bad1 good default l 1 u:k"],
];

describe.each(adapterCases)("a malformed flow descriptor over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "adv-malformed");

  it.each(BAD)(
    "%s: the tick goes on, the good jobs around it run, it is retried or dead, nothing is lost",
    async (_what, descriptor) => {
      const ran: unknown[] = [];
      const tq = h.make({ good: ([tag]: [string]) => void ran.push(tag) });
      const queue = `${h.prefix}queue:default`;
      await tq.enqueue("good", ["before"]);
      await h.redis.lpush(queue, job(descriptor, "bad1"));
      await tq.enqueue("good", ["after"]);
      const outcome = await tq.tick().then(
        (report) => ({ report }),
        (error: unknown) => ({ error: String(error) }),
      );
      const dead = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
      const kept = [
        ...dead.map((entry) => String(JSON.parse(entry).raw ?? entry)),
        ...(await h.redis.zrange(`${h.prefix}retry`, "0", "-1")),
        ...(await h.redis.lrange(queue, 0, -1)),
        ...((await h.redis.keys(`${h.prefix}inproc:*`)).length ? ["(in process)"] : []),
      ];
      // Nothing lost: each of the three jobs ran or is still somewhere in Redis.
      const accounted = (tag: string) => ran.includes(tag) || kept.some((text) => text.includes(`"${tag}"`));
      expect({ before: accounted("before"), after: accounted("after"), bad: accounted("bad1") }).toEqual({
        before: true,
        after: true,
        bad: true,
      });
      expect(outcome).not.toHaveProperty("error");
      expect(ran.sort()).toEqual(["after", "before"]);
      // In the dead set, Sidekiq-shaped, with its text whole and why.
      expect(dead).toHaveLength(1);
      const entry = JSON.parse(dead[0]!);
      expect(entry).toMatchObject({
        class: "TickqMalformedJob",
        error_class: "TickqMalformedJob",
        raw: job(descriptor, "bad1"),
      });
      expect(entry.error_message).toMatch(/flow control descriptor/);
    },
  );
});
