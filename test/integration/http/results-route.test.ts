// GET /jobs/:jid/result: a job's state, and its result or error once it
// ended; a read secret may call it.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const SECRET = "results-admin-s3cret";
const READ = "results-read-s3cret";

describe.each(adapterCases)("GET /jobs/:jid/result over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "results-route");
  const setup = () => {
    const tickq = h.make(
      {
        area: ([w, h]: [number, number]) => ({ area: w * h }),
        fail: {
          retry: false,
          perform: () => {
            throw new Error("boom");
          },
        },
      },
      { keepCompleted: { count: 10 } },
    );
    const app = createApp({ tickq, secrets: [SECRET], readSecrets: [READ] });
    const get = async (path: string, secret = READ) => {
      const res = await app.request(path, { headers: { Authorization: `Bearer ${secret}` } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    return { tickq, get };
  };

  it("answers a succeeded job's value, a dead job's error and a queued job's state to a read secret", async () => {
    const { tickq, get } = setup();
    const [ok, dead] = await tickq.enqueueBulk([
      { name: "area", args: [3, 4] },
      { name: "fail", args: [] },
    ]);
    await tickq.tick();
    const queued = await tickq.enqueue("area", [1, 1]);
    expect(await get(`/jobs/${ok}/result`)).toMatchObject({
      status: 200,
      body: { state: "succeeded", value: { area: 12 } },
    });
    expect(await get(`/jobs/${dead}/result`)).toEqual({
      status: 200,
      body: { state: "dead", error: { class: "Error", message: "boom" } },
    });
    expect(await get(`/jobs/${queued}/result`)).toEqual({ status: 200, body: { state: "queued" } });
    expect(await get("/jobs/nope/result")).toEqual({ status: 200, body: { state: "unknown" } });
  });

  it("lists succeeded jobs with their results", async () => {
    const { tickq, get } = setup();
    const jid = await tickq.enqueue("area", [2, 5]);
    await tickq.tick();
    const { body } = await get("/jobs?state=succeeded", SECRET);
    expect(body.jobs).toMatchObject([{ jid, state: "succeeded", result: { area: 10 } }]);
  });

  it("answers 400 for a jid that is no name", async () => {
    const { get } = setup();
    expect((await get(`/jobs/${encodeURIComponent("a b")}/result`)).status).toBe(400);
  });
});
