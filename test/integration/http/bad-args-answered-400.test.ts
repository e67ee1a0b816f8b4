// POST /jobs checks args as enqueue does: what the job's schema refuses is
// a 400 whose body names the path (`args[0].email: …`, code BAD_ARGS), and a
// job without `args` is a 400 too (enqueue's signature requires them; `[]`
// for none), never a handler run with []. Nothing of the request is written.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { snapshot } from "../../helpers/snapshot.js";

const SECRET = "args-secret-for-tests";
const post = (body: unknown) => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
});
const welcome = v.tuple([
  v.object({ email: v.pipe(v.string("expected string"), v.email("expected an email address")) }),
]);

describe.each(adapterCases)("POST /jobs with bad args over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "args-http");
  const makeApp = () =>
    createApp({
      tickq: h.make({ sendWelcomeEmail: { schema: welcome, perform: () => {} }, ping: () => {} }),
      secrets: [SECRET],
    });

  it.each([
    ["swapped types", { name: "sendWelcomeEmail", args: [42] }, /^args\[0\]: /],
    [
      "a field of the wrong type",
      { name: "sendWelcomeEmail", args: [{ email: 42 }] },
      /^args\[0\]\.email: expected string$/,
    ],
    [
      "a value the schema's check refuses",
      { name: "sendWelcomeEmail", args: [{ email: "nope" }] },
      /^args\[0\]\.email: expected an email address$/,
    ],
  ])("%s: 400 BAD_ARGS naming the path, nothing written", async (_label, body, message) => {
    const app = makeApp();
    const before = await snapshot(h.redis, h.prefix);
    const res = await app.request("/jobs", post(body));
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { error: string; code: string };
    expect(answer.code).toBe("BAD_ARGS");
    expect(answer.error.replace('Job "sendWelcomeEmail": ', "")).toMatch(message);
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });

  it("a job without args is a 400 saying args are required, in a batch too; nothing written", async () => {
    const app = makeApp();
    const single = await app.request("/jobs", post({ name: "sendWelcomeEmail" }));
    expect(single.status).toBe(400);
    expect(await single.json()).toMatchObject({
      error: "args: args is required: the job's args as a JSON array ([] for none)",
    });
    const batch = await app.request("/jobs", post([{ name: "ping", args: [] }, { name: "ping" }]));
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: string }).error).toMatch(/^1\.args: args is required/);
    expect(await h.redis.keys(`${h.prefix}*`)).toEqual([]);
  });

  it("args the schema accepts are enqueued: 201", async () => {
    const res = await makeApp().request(
      "/jobs",
      post({ name: "sendWelcomeEmail", args: [{ email: "ann@example.com" }] }),
    );
    expect(res.status).toBe(201);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
  });
});
