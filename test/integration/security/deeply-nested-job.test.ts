// A stored job nested deeper than any real job (any client of the Redis can
// write one) is shown as unreadable, by its raw text: the dashboard's pages
// and the jobs API still answer, where re-serializing it would overflow the
// stack.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { dashboard } from "../../../src/dashboard/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "../dashboard/login.js";

const SECRET = "deeply-nested-secret-0123";
const DEPTH = 20_000;
const deep = `{"class":"ok","queue":"default","jid":"deep-one","args":${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}}`;

describe("a deeply nested stored job", () => {
  const h = useHarness(adapterCases[0]!, "sec-deep-job");

  it("leaves every page and the jobs API answering", async () => {
    const tickq = h.make({ ok: () => {} });
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    const now = Date.now() / 1000;
    await h.redis.zadd(`${h.prefix}dead`, now, deep);
    await h.redis.zadd(`${h.prefix}retry`, now + 60, deep);
    await h.redis.lpush(`${h.prefix}queue:default`, deep);
    await h.redis.sadd(`${h.prefix}queues`, "default");
    for (const path of [
      "/dashboard/dead",
      "/dashboard/retry",
      "/dashboard/queues/default",
      "/dashboard/jobs/deep-one",
    ]) {
      expect((await browser.get(path)).status, path).toBe(200);
    }
    for (const path of [
      "/jobs?state=dead",
      "/jobs?state=retry",
      "/jobs?state=queued&queue=default",
      "/jobs/deep-one",
    ]) {
      const res = await app.request(path, { headers: { authorization: `Bearer ${SECRET}` } });
      expect(res.status, path).toBe(200);
      expect((await res.json()).jobs ?? [], path).toHaveLength(path.includes("?") ? 1 : 0);
    }
  });
});
