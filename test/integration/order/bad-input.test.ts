// Bad priorities and groups are refused before anything is written, with a
// TickqError naming the job and the value: a priority outside ±1,000 or not
// an integer, a group that is empty or holds whitespace, a group function
// that throws or returns no string, at enqueue (BAD_ARGS), over HTTP (400),
// and in a job definition at createTickq (BAD_OPTIONS).
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import type { EnqueueOptions } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("bad priority and group over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "order-bad");

  it.each([
    [{ priority: 1.5 }, /priority must be an integer from -1000 to 1000, got 1.5/],
    [{ priority: "5" }, /priority must be an integer/],
    [{ priority: 1001 }, /got 1001/],
    [{ priority: -1001 }, /got -1001/],
    [{ priority: Number.NaN }, /got NaN/],
    [{ group: "" }, /group must be a non-empty string/],
    [{ group: "a b" }, /without whitespace or control characters, got "a b"/],
    [{ group: "a\u009bb" }, /without whitespace or control characters, got "a\\u009bb"/],
    [{ group: 5 }, /group must be .*got number/],
  ])("enqueue with %o is BAD_ARGS and writes nothing", async (options, message) => {
    const tq = h.make({ job: () => {} });
    const call = tq.enqueue("job", [], options as EnqueueOptions);
    await expect(call).rejects.toMatchObject({ code: "BAD_ARGS" });
    await expect(call).rejects.toThrow(message);
    const bulk = tq.enqueueBulk([
      { name: "job", args: [] },
      { name: "job", args: [], ...(options as EnqueueOptions) },
    ]);
    await expect(bulk).rejects.toMatchObject({ code: "BAD_ARGS" });
    expect(await h.redis.keys(`${h.prefix}*`)).toEqual([]);
  });

  it("a group function that throws or returns no string is BAD_ARGS naming the job", async () => {
    const tq = h.make({
      throws: {
        perform: () => {},
        group: () => {
          throw new Error("no tenant");
        },
      },
      number: { perform: () => {}, group: () => 5 as unknown as string },
      spaced: { perform: () => {}, group: () => "two words" },
    });
    await expect(tq.enqueue("throws", [])).rejects.toThrow(/^Job "throws": group threw: no tenant$/);
    await expect(tq.enqueue("number", [])).rejects.toMatchObject({
      code: "BAD_ARGS",
      message: expect.stringMatching(/group\(args\) must be .*got number/),
    });
    await expect(tq.enqueue("spaced", [])).rejects.toMatchObject({ code: "BAD_ARGS" });
    // enqueue's own group wins over the function, which is then not called
    await tq.enqueue("throws", [], { group: "given" });
    expect(await h.redis.zcard(`${h.prefix}group:default given`)).toBe(1);
  });

  it("a job definition with a bad priority or a group that is no function is BAD_OPTIONS at createTickq", () => {
    expect(() => h.make({ job: { perform: () => {}, priority: 2.5 } })).toThrow(
      expect.objectContaining({
        code: "BAD_OPTIONS",
        message: expect.stringMatching(/job "job": priority must be an integer/),
      }),
    );
    expect(() => h.make({ job: { perform: () => {}, group: "tenant" as never } })).toThrow(
      expect.objectContaining({ code: "BAD_OPTIONS", message: 'job "job": group must be a function (args) => string' }),
    );
  });

  it("POST /jobs answers 400 for a bad priority or group, and enqueues nothing", async () => {
    const tickq = h.make({ job: () => {} });
    const app = createApp({ tickq, secrets: ["s3cret-for-order-tests"] });
    const post = (body: unknown) =>
      app.request("/jobs", {
        method: "POST",
        body: JSON.stringify(body),
        headers: { Authorization: "Bearer s3cret-for-order-tests", "content-type": "application/json" },
      });
    for (const [body, message] of [
      [{ name: "job", args: [], priority: 1.5 }, /priority must be an integer/],
      [{ name: "job", args: [], priority: 5000 }, /priority must be ≤ 1000/],
      [{ name: "job", args: [], group: "a b" }, /group must be 1–256 characters/],
    ] as const) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatch(message);
    }
    expect(await h.redis.keys(`${h.prefix}*`)).toEqual([]);
    const ok = await post({ name: "job", args: [], priority: 7, group: "t1" });
    expect(ok.status).toBe(201);
    expect(await h.redis.zcard(`${h.prefix}group:default t1`)).toBe(1);
  });
});
