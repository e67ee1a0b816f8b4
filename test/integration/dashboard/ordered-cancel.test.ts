// The dashboard's Ordered page cancels an ordered id by name (an ordered id
// has no jid, so it is typed, not picked): POST /ordered/:name/cancel with
// the CSRF token takes a waiting id out and says so; an id with nothing
// waiting or running answers a 404 page; without the token nothing happens.
// What it took is on the Cancelled page and has a job page.
import { describe, expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "./login.js";

const SECRET = "ordered-dash-s3cret";
const notice = (res: Response) => new URL(res.headers.get("location") ?? "", "http://x").searchParams.get("done");

describe.each(adapterCases)("the dashboard's ordered cancel over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "dash-ordered-cancel");

  it("cancels a waiting id from the Ordered page; an unknown id is a 404 page", async () => {
    const tickq = h.make({}, { ordered: { idx: { perform: () => {} } } });
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    await tickq.enqueueOrdered("idx", { id: "shipment 42", payload: { v: 1 } });
    const shown = await browser.get("/dashboard/ordered");
    expect(shown.html).toContain('action="/dashboard/ordered/idx/cancel"');
    const _csrf = await browser.token("/dashboard/ordered");
    expect((await browser.post("/dashboard/ordered/idx/cancel", { id: "shipment 42" })).status).toBe(403);
    expect((await tickq.stats()).ordered.idx?.waiting).toBe(1);
    const res = await browser.post("/dashboard/ordered/idx/cancel", {
      _csrf,
      back: "/dashboard/ordered",
      id: "shipment 42",
    });
    expect(res.status).toBe(303);
    expect(notice(res)).toBe('Ordered idx id "shipment 42" cancelled (1 payload(s) taken).');
    expect((await tickq.stats()).ordered.idx).toMatchObject({ waiting: 0, payloads: 0 });
    const again = await browser.post("/dashboard/ordered/idx/cancel", { _csrf, id: "shipment 42" });
    expect(again.status).toBe(404);
    // Its record is on the Cancelled page, with plain jobs, and has a page of its own.
    const [record] = (await tickq.jobs.list("cancelled")).jobs;
    expect(record).toMatchObject({ name: "idx", ordered: { id: "shipment 42" } });
    const listed = await browser.get("/dashboard/cancelled");
    expect(listed.html).toContain(`/dashboard/jobs/${record!.jid}`);
    const page = await browser.get(`/dashboard/jobs/${record!.jid}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain("shipment 42");
  });
});
