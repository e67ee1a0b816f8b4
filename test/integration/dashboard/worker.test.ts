// The dashboard served by the bundled example Worker in Miniflare (workerd),
// over the local Upstash-compatible server: login, every page, an action
// with its CSRF token, and one without it refused. WebCrypto sessions,
// cookies and forms behave in workerd as on Node. Where Chromium runs, it
// logs in and renders the overview at Miniflare's own URL too.
import { describe, expect, it } from "vitest";
import { useWorkerInMiniflare } from "../../helpers/worker-in-miniflare.js";
import { hasChromium, launchChromium, logIn } from "./chromium.js";
import { tokenIn } from "./login.js";

const SECRET = "worker-dash-s3cret";

describe("the dashboard in the bundled Worker (Miniflare)", () => {
  const worker = useWorkerInMiniflare("worker-dash", { TICKQ_SECRET: SECRET });
  const { redis, prefix } = worker;
  let cookie = "";

  const get = async (path: string) => {
    const res = await worker.mf.dispatchFetch(`https://worker.test${path}`, {
      headers: { cookie },
      redirect: "manual",
    });
    return { status: res.status, html: await res.text(), location: res.headers.get("location") };
  };
  const post = (path: string, fields: Record<string, string>) =>
    worker.mf.dispatchFetch(`https://worker.test${path}`, {
      method: "POST",
      body: new URLSearchParams(fields),
      redirect: "manual",
      headers: { cookie, origin: "https://worker.test", "content-type": "application/x-www-form-urlencoded" },
    });

  it("logs in: a wrong secret is refused, the right one gets a Secure, HttpOnly, SameSite=Strict cookie", async () => {
    expect((await get("/dashboard")).location).toBe("/dashboard/login");
    expect((await post("/dashboard/login", { secret: "wrong" })).status).toBe(401);
    const res = await post("/dashboard/login", { secret: SECRET });
    expect(res.status).toBe(303);
    const set = res.headers.get("set-cookie")!;
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/Secure/);
    expect(set).toMatch(/SameSite=Strict/);
    cookie = set.split(";")[0]!;
  });

  it("renders every page from Redis over HTTP", async () => {
    const enqueue = await worker.mf.dispatchFetch("https://worker.test/jobs", {
      method: "POST",
      headers: { Authorization: `Bearer ${SECRET}` },
      body: JSON.stringify([
        { name: "sendWelcomeEmail", args: ["a@b.c"] },
        { name: "resizeImage", args: ["https://img", 200], delayMs: 600_000 },
      ]),
    });
    const { jids } = (await enqueue.json()) as { jids: string[] };
    const overview = await get("/dashboard");
    expect(overview.status).toBe(200);
    expect(overview.html).toMatch(/data-stat="waiting"><b><a [^>]+>1</);
    expect(overview.html).toMatch(/data-stat="scheduled"><b><a [^>]+>1</);
    expect(overview.html).toContain("<svg");
    for (const [path, text] of [
      ["/dashboard/overview", 'data-stat="processed"'],
      ["/dashboard/queues", ">default</a>"],
      ["/dashboard/queues/default", jids[0]],
      ["/dashboard/scheduled", jids[1]],
      ["/dashboard/retry", "No jobs here."],
      ["/dashboard/dead", "No jobs here."],
      ["/dashboard/running", "No jobs here."],
      ["/dashboard/schedules", "No recurring jobs."],
      ["/dashboard/ordered", "<h1>Ordered"],
      ["/dashboard/ticks", "<h1>Ticks"],
      [`/dashboard/jobs/${jids[1]}`, "resizeImage"],
    ] as const) {
      const page = await get(path);
      expect(page.status, path).toBe(200);
      expect(page.html, path).toContain(text);
    }
    expect((await get("/dashboard/jobs/nope")).status).toBe(404);
  });

  it("runs an action with the CSRF token, and refuses it without (403)", async () => {
    const token = tokenIn((await get("/dashboard/queues")).html);
    expect((await post("/dashboard/queues/default/pause", {})).status).toBe(403);
    expect(await redis.smembers(`${prefix}paused`)).toEqual([]);
    const res = await post("/dashboard/queues/default/pause", { _csrf: token, back: "/dashboard/queues" });
    expect(res.status).toBe(303);
    expect(await redis.smembers(`${prefix}paused`)).toEqual(["default"]);
  });

  it.skipIf(!hasChromium)(
    "renders in Chromium at Miniflare's URL: login, the overview's figures, the refresh script",
    async () => {
      const url = await worker.mf.ready;
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await logIn(page, new URL("/dashboard", url).href, SECRET);
        await expect(page.locator('[data-stat="scheduled"] b').innerText()).resolves.toBe("1");
        await expect(page.locator("#pause").innerText()).resolves.toBe("Pause"); // the script ran
        // the last hour's throughput and the daily chart
        await expect(page.locator("svg").count()).resolves.toBe(2);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
