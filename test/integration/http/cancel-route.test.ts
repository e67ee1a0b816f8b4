// POST /jobs/:jid/cancel: cancels a job for an admin secret (200 with what it
// did), answers 409 CONFLICT for a finished job and 404 for an unknown one,
// and refuses a read-only secret (a cancel changes jobs) and no secret.
// POST /ordered/:name/:id/cancel does the same for an ordered id, its id
// URL-encoded (404 when nothing of it waits or runs).
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const SECRET = "cancel-admin-s3cret";
const READ = "cancel-read-s3cret";

describe.each(adapterCases)("POST /jobs/:jid/cancel over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cancel-route");
  const setup = () => {
    const tickq = h.make(
      { work: () => "done" },
      { keepCompleted: { count: 10 }, ordered: { idx: { perform: () => {} } } },
    );
    const app = createApp({ tickq, secrets: [SECRET], readSecrets: [READ] });
    const post = async (path: string, secret?: string) => {
      const res = await app.request(path, {
        method: "POST",
        headers: secret === undefined ? {} : { Authorization: `Bearer ${secret}` },
      });
      return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
    };
    return { tickq, post };
  };

  it("cancels a queued job for an admin secret; the result then says cancelled", async () => {
    const { tickq, post } = setup();
    const jid = await tickq.enqueue("work", []);
    expect(await post(`/jobs/${jid}/cancel`, SECRET)).toEqual({
      status: 200,
      body: { jid, state: "cancelled", from: "queued" },
    });
    expect((await tickq.jobs.result(jid)).state).toBe("cancelled");
  });

  it("answers 409 for a finished job and 404 for an unknown one", async () => {
    const { tickq, post } = setup();
    const jid = await tickq.enqueue("work", []);
    await tickq.tick();
    expect(await post(`/jobs/${jid}/cancel`, SECRET)).toMatchObject({ status: 409, body: { code: "CONFLICT" } });
    expect(await post("/jobs/nope/cancel", SECRET)).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
  });

  it("refuses a read-only secret and no secret, and cancels nothing", async () => {
    const { tickq, post } = setup();
    const jid = await tickq.enqueue("work", []);
    expect((await post(`/jobs/${jid}/cancel`, READ)).status).toBe(403);
    expect((await post(`/jobs/${jid}/cancel`)).status).toBe(401);
    expect((await tickq.jobs.find(jid))?.state).toBe("queued");
  });

  it("cancels a waiting ordered id, its id URL-encoded; 404 once nothing of it waits; a read-only secret is refused", async () => {
    const { tickq, post } = setup();
    const id = "shipment/42 ü";
    await tickq.enqueueOrdered("idx", { id, payload: { v: 1 } });
    const path = `/ordered/idx/${encodeURIComponent(id)}/cancel`;
    expect((await post(path, READ)).status).toBe(403);
    expect(await post(path, SECRET)).toEqual({
      status: 200,
      body: { name: "idx", id, state: "cancelled", from: "queued", payloads: 1, jids: [expect.any(String)] },
    });
    expect(await post(path, SECRET)).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect((await tickq.stats()).ordered.idx).toMatchObject({ waiting: 0, payloads: 0 });
  });
});
