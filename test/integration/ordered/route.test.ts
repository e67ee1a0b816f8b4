// POST /jobs takes ordered jobs ({ name, id, payload, score?, delayMs? }),
// one, an array or { jobs }, validated like plain ones: 400 with what is
// wrong, nothing written.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { snapshot } from "../../helpers/snapshot.js";

const SECRET = "ordered-secret-for-tests";
const post = (body: unknown) => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
});

describe("POST /jobs with ordered jobs", () => {
  const h = useHarness(adapterCases[0]!, "ordered-route");
  const makeApp = () => {
    const tickq = h.make({ mail: (_args: [string]) => {} }, { ordered: { idx: { perform: () => {} } } });
    return { app: createApp({ tickq, secrets: [SECRET] }), tickq };
  };

  it("enqueues one ordered job, answering 201 with its id", async () => {
    const { app, tickq } = makeApp();
    const res = await app.request("/jobs", post({ name: "idx", id: "shipment-42", payload: { v: 7 }, score: 7 }));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ id: "shipment-42" });
    expect(await h.redis.zrange(`${h.prefix}o:idx:p:shipment-42`, "0", "-1", "WITHSCORES")).toEqual(['{"v":7}', "7"]);
    expect((await tickq.stats()).ordered.idx).toMatchObject({ waiting: 1, payloads: 1 });
  });

  it("enqueues a batch, as an array or as { jobs }, null payloads included", async () => {
    const { app, tickq } = makeApp();
    const a = await app.request(
      "/jobs",
      post([
        { name: "idx", id: "a", payload: 1 },
        { name: "idx", id: "a", payload: null, delayMs: 10 },
      ]),
    );
    expect(await a.json()).toEqual({ ids: ["a", "a"] });
    const b = await app.request("/jobs", post({ jobs: [{ name: "idx", id: "b", payload: "x" }] }));
    expect(b.status).toBe(201);
    expect((await tickq.stats()).ordered.idx).toMatchObject({ waiting: 2, payloads: 3 });
  });

  it.each([
    ["an unknown ordered name", { name: "nope", id: "a", payload: 1 }, /Unknown ordered job "nope"/],
    ["a plain job's name", { name: "mail", id: "a", payload: 1 }, /"mail" is a plain job/],
    ["an empty id", { name: "idx", id: "", payload: 1 }, /^id: id must not be empty/],
    ["a numeric id", { name: "idx", id: 5, payload: 1 }, /^id: id must be a string/],
    ["no payload", { name: "idx", id: "a" }, /^payload: .*"payload"/],
    ["a string score", { name: "idx", id: "a", payload: 1, score: "7" }, /^score: score must be a number/],
    ["args beside an id", { name: "idx", id: "a", payload: 1, args: [] }, /args/],
    [
      "a bad job inside a batch",
      [
        { name: "idx", id: "a", payload: 1 },
        { name: "idx", id: "", payload: 1 },
      ],
      /^1\.id/,
    ],
    [
      "plain and ordered jobs together",
      [
        { name: "mail", args: ["x"] },
        { name: "idx", id: "a", payload: 1 },
      ],
      /not both/,
    ],
  ])("answers 400 for %s, and enqueues nothing", async (_label, body, message) => {
    const { app } = makeApp();
    const before = await snapshot(h.redis, h.prefix);
    const res = await app.request("/jobs", post(body));
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(message);
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });

  it("still takes plain jobs as before", async () => {
    const { app } = makeApp();
    const res = await app.request("/jobs", post({ name: "mail", args: ["a@b.c"] }));
    expect(res.status).toBe(201);
    expect((await res.json()).jid).toMatch(/^[0-9a-f]{24}$/);
  });
});
