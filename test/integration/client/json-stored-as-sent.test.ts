// No JSON surprises: a stored job is never re-encoded (fields
// tickq owns are spliced into the original text), enqueue refuses args that
// Redis' cjson cannot read, and no script decodes user data to route a job.
import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

// What another client (Ruby's 2**53+1, 1.0, an empty array cjson would turn into {}) might write.
const HANDMADE =
  '{"class":"boom","args":[9007199254740993, 1.0, []],"jid":"x1","queue":"default","retry":true,"extra":{"a":[]}}';
const VERBATIM = ["9007199254740993", "1.0", "[]", '"extra":{"a":[]}', "[9007199254740993, 1.0, []]"];

/** The text a job moved from `retry` to its queue has: its own, with `enqueued_at` appended. */
const movedAs = (raw: string) =>
  new RegExp(`^${raw.slice(0, -1).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")},"enqueued_at":\\d+\\.\\d{3}}$`);

describe.each(adapterCases)("JSON fidelity over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "json-fidelity");

  async function keysUnderPrefix(): Promise<string[]> {
    return h.redis.keys(`${h.prefix.replace(/[*?[\]\\]/g, "\\$&")}*`);
  }

  function expectSpliced(entry: string | undefined, original: string) {
    // Every original byte, in place; only error fields appended before the closing brace.
    expect(entry).toBeDefined();
    expect(entry!.startsWith(`${original.slice(0, original.lastIndexOf("}"))},`)).toBe(true);
    for (const bytes of VERBATIM) if (original.includes(bytes)) expect(entry).toContain(bytes);
  }

  it("a failed job keeps every original byte in the retry set, through two failures", async () => {
    const tq = h.make({
      boom: {
        perform: () => {
          throw new Error("kaboom");
        },
        backoff: () => 0,
      },
    });
    await h.redis.lpush(`${h.prefix}queue:default`, HANDMADE);
    expect(await tq.tick()).toMatchObject({ fetched: 1, failed: 1, retried: 1 });
    const [first] = await h.redis.zrange(`${h.prefix}retry`, "0", "-1");
    expectSpliced(first, HANDMADE);
    expect(JSON.parse(first!)).toMatchObject({
      error_class: "Error",
      error_message: "kaboom",
      retry_count: 0,
      jid: "x1",
    });

    // The retry runs (backoff 0) and fails again: retry_count is replaced in place, retried_at added.
    expect(await tq.tick()).toMatchObject({ scheduled: 1, fetched: 1, failed: 1, retried: 1 });
    const [second] = await h.redis.zrange(`${h.prefix}retry`, "0", "-1");
    expectSpliced(second, HANDMADE);
    const job = JSON.parse(second!);
    expect(job).toMatchObject({ retry_count: 1, error_message: "kaboom" });
    expect(job.retried_at).toBeGreaterThanOrEqual(job.failed_at);
    expect(second!.match(/"retry_count"/g)).toHaveLength(1);
  });

  it("a failed `retry: false` job keeps every original byte in the dead set; so does pretty-printed JSON", async () => {
    const tq = h.make({
      boom: () => {
        throw new Error("kaboom");
      },
    });
    const once = HANDMADE.replace('"retry":true', '"retry":false');
    const pretty =
      '{\n  "class": "boom",\n  "args": [9007199254740993, 1.0, []],\n  "queue": "default",\n  "retry": false\n}';
    await h.redis.lpush(`${h.prefix}queue:default`, once, pretty);
    expect(await tq.tick()).toMatchObject({ fetched: 2, failed: 2, dead: 2 });
    const dead = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
    expectSpliced(
      dead.find((d) => d.includes('"jid":"x1"')),
      once,
    );
    expectSpliced(
      dead.find((d) => d.startsWith("{\n")),
      pretty,
    );
    for (const d of dead) expect(JSON.parse(d)).toMatchObject({ error_message: "kaboom", retry_count: 0 });
  });

  it("enqueue refuses a lone surrogate or nesting past 1,000 with BAD_ARGS and writes nothing", async () => {
    const tq = h.make({ work: () => {} });
    let deep: unknown = [];
    for (let i = 0; i < 1_001; i++) deep = [deep];
    const bad = [["\ud800"], ["ok", { key: "x\udfffy" }], [deep]];
    for (const args of bad) {
      const err = await tq.enqueue("work", args).catch((e) => e);
      expect(err).toBeInstanceOf(TickqError);
      expect(err.code).toBe("BAD_ARGS");
    }
    const lone = await tq.enqueue("work", ["\ud800"]).catch((e) => e);
    expect(lone.message).toMatch(/surrogate/);
    const nested = await tq.enqueue("work", [deep]).catch((e) => e);
    expect(nested.message).toMatch(/1,?000/);
    // A bulk call with one bad job pushes none of them.
    const bulk = await tq
      .enqueueBulk([
        { name: "work", args: [1] },
        { name: "work", args: ["\udc00"] },
      ])
      .catch((e) => e);
    expect(bulk).toMatchObject({ code: "BAD_ARGS" });
    expect(await keysUnderPrefix()).toEqual([]);
  });

  it("enqueue accepts what only looks like a surrogate, a real pair, and deep-but-legal nesting; the handler gets them back", async () => {
    const seen: unknown[] = [];
    const tq = h.make({ work: (args: unknown[]) => void seen.push(args) });
    let deep: unknown = "bottom";
    for (let i = 0; i < 500; i++) deep = [deep];
    const args = ["\\ud800", "\\\\\ud83d\ude00", "😀", deep];
    await tq.enqueue("work", args);
    expect(await tq.tick()).toMatchObject({ succeeded: 1, dead: 0 });
    expect(seen).toEqual([args]);
  });

  it("a retry entry whose queue name is escaped is routed to the decoded queue", async () => {
    const ran: string[] = [];
    const tq = h.make({ good: (_a: unknown[], ctx) => void ran.push(ctx.queue) }, { queues: ["abc"] });
    await h.redis.zadd(`${h.prefix}retry`, 1, '{"class":"good","args":[],"jid":"e1","queue":"a\\u0062c","retry":true}');
    expect(await tq.tick()).toMatchObject({ scheduled: 1, fetched: 1, succeeded: 1 });
    expect(ran).toEqual(["abc"]);
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);
    expect(await h.redis.smembers(`${h.prefix}queues`)).toEqual(["abc"]);
  });

  it("a retry entry whose queue key is escaped, or repeated, is routed as every JSON reader reads it (last key wins)", async () => {
    const escapedKey = '{"class":"good","args":[],"jid":"k1","qu\\u0065ue":"abc"}';
    const repeated = '{"class":"good","args":[],"jid":"k2","queue":"xyz","queue":"abc"}';
    expect([JSON.parse(escapedKey).queue, JSON.parse(repeated).queue]).toEqual(["abc", "abc"]);
    await h.redis.zadd(`${h.prefix}retry`, 1, escapedKey, 1, repeated);
    expect(await h.make({ good: () => {} }, { queues: ["other"] }).tick()).toMatchObject({ scheduled: 2 });
    const where = async (jid: string) => {
      for (const q of ["abc", "default", "xyz"]) {
        if ((await h.redis.lrange(`${h.prefix}queue:${q}`, 0, -1)).some((j) => j.includes(`"${jid}"`))) return q;
      }
      return "nowhere";
    };
    expect({ escapedKey: await where("k1"), repeated: await where("k2") }).toEqual({
      escapedKey: "abc",
      repeated: "abc",
    });
  });

  it("a retry entry cjson cannot read (a lone surrogate in args) still reaches its own queue, and runs", async () => {
    const seen: unknown[][] = [];
    let failures = 0;
    const tq = h.make(
      {
        good: {
          perform: (args: unknown[]) => {
            seen.push(args);
            if (failures++ === 0) throw new Error("once");
          },
          backoff: () => 0,
        },
      },
      { queues: ["abc"] },
    );
    const raw = '{"class":"good","args":["\\ud800",1.0],"jid":"s1","queue":"abc","retry":true}';
    await h.redis.zadd(`${h.prefix}retry`, 1, raw);
    // A tick serving another queue moves it: it must land in queue:abc, not default.
    await h.make({ good: () => {} }, { queues: ["other"] }).tick();
    const [moved] = await h.redis.lrange(`${h.prefix}queue:abc`, 0, -1);
    expect(moved).toMatch(movedAs(raw)); // untouched but for enqueued_at, set as Sidekiq's poller sets it
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);

    expect(await tq.tick()).toMatchObject({ fetched: 1, failed: 1, retried: 1 });
    const [retried] = await h.redis.zrange(`${h.prefix}retry`, "0", "-1");
    expectSpliced(retried, raw);
    expect(retried).toContain('"args":["\\ud800",1.0]');
    expect(await tq.tick()).toMatchObject({ scheduled: 1, succeeded: 1 });
    expect(seen).toEqual([
      ["\ud800", 1],
      ["\ud800", 1],
    ]);
  });

  it("a retry entry JS cannot parse reaches its own queue, then the dead set with the reason, readable", async () => {
    const tq = h.make({ good: () => {} }, { queues: ["abc"] });
    const raw = '{"class":"good","args":[1,,2],"jid":"m1","queue":"abc"}';
    await h.redis.zadd(`${h.prefix}retry`, 1, raw);
    expect(await tq.tick()).toMatchObject({ scheduled: 1, fetched: 1, dead: 1, succeeded: 0 });
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);
    const [dead] = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
    // The dead set must stay readable (Sidekiq's UI, tickq's own tools): the text is kept whole in `raw`.
    const entry = JSON.parse(dead!);
    expect(entry).toMatchObject({ error_class: "TickqMalformedJob", error_message: "job is not valid JSON" });
    expect(entry.raw).toMatch(movedAs(raw));
    expect(await tq.stats()).toMatchObject({ inflight: 0, queues: { abc: 0 } });
  });

  it("a retry entry whose queue is not a string is routed by its queue field, never to default", async () => {
    const tq = h.make({ good: () => {} }, { queues: ["other"] });
    await h.redis.zadd(`${h.prefix}retry`, 1, '{"class":"good","args":[],"jid":"n1","queue":5}');
    await tq.tick();
    // Sidekiq (and tickq's own decodeJob: String(queue)) read queue 5 as "5".
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);
    expect(await h.redis.llen(`${h.prefix}queue:5`)).toBe(1);
  });
});
