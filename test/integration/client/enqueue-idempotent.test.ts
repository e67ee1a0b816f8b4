// Idempotent enqueue: a jid the caller chose is remembered for idWindowMs,
// so retrying an enqueue that timed out (it may have landed) never doubles
// the job — through enqueue, enqueueBulk and POST /jobs.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { TickqError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("enqueue with your own jid over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "idempotent");
  const queued = async () => (await h.redis.lrange(`${h.prefix}queue:default`, 0, -1)).map((j) => JSON.parse(j).jid);

  it("the same jid twice pushes one job and returns that jid both times", async () => {
    const tq = h.make({ mail: (_args: [string]) => {} });
    expect(await tq.enqueue("mail", ["a"], { jid: "order-42" })).toBe("order-42");
    expect(await tq.enqueue("mail", ["a"], { jid: "order-42" })).toBe("order-42");
    expect(await queued()).toEqual(["order-42"]);
  });

  it("still pushes nothing once the first job has run, within the window", async () => {
    const ran: string[] = [];
    const tq = h.make({ mail: (args: [string]) => void ran.push(args[0]) });
    await tq.enqueue("mail", ["first"], { jid: "once" });
    await tq.tick();
    await tq.enqueue("mail", ["second"], { jid: "once" });
    await tq.tick();
    expect(ran).toEqual(["first"]);
  });

  it("dedupes within one bulk call and across calls, scheduled jobs too", async () => {
    const tq = h.make({ mail: (_args: [string]) => {} });
    const jids = await tq.enqueueBulk([
      { name: "mail", args: ["x"], jid: "a" },
      { name: "mail", args: ["x"], jid: "a" },
      { name: "mail", args: ["y"], jid: "b", delayMs: 60_000 },
      { name: "mail", args: ["z"] },
    ]);
    expect(jids.slice(0, 3)).toEqual(["a", "a", "b"]);
    await tq.enqueueBulk([{ name: "mail", args: ["y"], jid: "b", delayMs: 60_000 }]);
    expect((await queued()).sort()).toEqual(["a", jids[3]].sort());
    expect(await h.redis.zcard(`${h.prefix}schedule`)).toBe(1);
  });

  it("forgets a jid after the window of the client that pushed it", async () => {
    const tq = h.make({ mail: (_args: [string]) => {} }, { idWindowMs: 1_000 });
    await tq.enqueue("mail", ["a"], { jid: "short" });
    await sleep(1_100);
    await tq.enqueue("mail", ["a"], { jid: "short" });
    expect(await queued()).toEqual(["short", "short"]);
  });

  it("pushes a jid once whatever idWindowMs each client was given (a deploy that changes it, the CLI beside an app)", async () => {
    const short = h.make({ mail: (_args: [string]) => {} }, { idWindowMs: 60_000 });
    const long = h.make({ mail: (_args: [string]) => {} });
    expect(await short.enqueue("mail", ["a"], { jid: "from-short" })).toBe("from-short");
    expect(await long.enqueue("mail", ["a"], { jid: "from-short" })).toBe("from-short");
    expect(await long.enqueue("mail", ["b"], { jid: "from-long" })).toBe("from-long");
    expect(await short.enqueueBulk([{ name: "mail", args: ["b"], jid: "from-long" }])).toEqual(["from-long"]);
    expect((await queued()).sort()).toEqual(["from-long", "from-short"]);
  });

  it("honours jids remembered before a deploy, in the sets named by window", async () => {
    const [seconds] = await h.redis.time();
    const bucket = Math.floor((Number(seconds) * 1000) / 86_400_000);
    await h.redis.sadd(`${h.prefix}jids:86400000:${bucket}`, "before-deploy");
    await h.redis.sadd(`${h.prefix}jids:60000:${Math.floor((Number(seconds) * 1000) / 60_000)}`, "short-before-deploy");
    const tq = h.make({ mail: (_args: [string]) => {} }, { idWindowMs: 60_000 });
    await tq.enqueueBulk([
      { name: "mail", args: ["a"], jid: "before-deploy" },
      { name: "mail", args: ["a"], jid: "short-before-deploy" },
    ]);
    expect(await queued()).toEqual([]);
  });

  it("refuses a jid that is empty, too long or holds spaces", async () => {
    const tq = h.make({ mail: (_args: [string]) => {} });
    for (const jid of ["", "a b", "x".repeat(129)]) {
      const error = await tq.enqueue("mail", ["a"], { jid }).catch((e) => e);
      expect(error).toBeInstanceOf(TickqError);
      expect(error.code).toBe("BAD_ARGS");
    }
    expect(await queued()).toEqual([]);
  });

  it("POST /jobs takes a jid and dedupes a retried request", async () => {
    const tickq = h.make({ mail: (_args: [string]) => {} });
    const app = createApp({ tickq, secrets: ["s3cret-for-tests-0"] });
    const send = () =>
      app.request("/jobs", {
        method: "POST",
        headers: { Authorization: "Bearer s3cret-for-tests-0", "content-type": "application/json" },
        body: JSON.stringify({ name: "mail", args: ["a"], jid: "webhook-7" }),
      });
    for (let i = 0; i < 2; i++) {
      const res = await send();
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ jid: "webhook-7" });
    }
    expect(await queued()).toEqual(["webhook-7"]);
    const bad = await app.request("/jobs", {
      method: "POST",
      headers: { Authorization: "Bearer s3cret-for-tests-0", "content-type": "application/json" },
      body: JSON.stringify({ name: "mail", args: [], jid: "has space" }),
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatch(/jid/);
  });
});
