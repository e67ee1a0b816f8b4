// The session cookie read and written by hand (src/dashboard/cookie.ts):
// the right cookie among others, a value session.ts could not have written
// skipped, and the attributes that keep it from other sites and scripts.
import { Hono } from "hono/tiny";
import { describe, expect, it } from "vitest";
import { readCookies, writeCookie } from "../../src/dashboard/cookie.js";

const app = new Hono();
app.get("/read", (c) =>
  c.json({ value: readCookies(c, "tickq_session")[0] ?? null, all: readCookies(c, "tickq_session") }),
);
app.get("/write", (c) => {
  writeCookie(c, "tickq_session", "n0nce.1700000000000.m-a_c", {
    path: "/api/dashboard",
    secure: c.req.query("secure") === "1",
    maxAgeSec: 43_200,
  });
  return c.body(null, 204);
});

const read = async (cookie?: string) =>
  (
    (await (await app.request("/read", { headers: cookie === undefined ? {} : { cookie } })).json()) as {
      value: string | null;
    }
  ).value;

describe("the session cookie", () => {
  it("reads its own cookie among others, and nothing where there is none", async () => {
    expect(await read()).toBeNull();
    expect(await read("a=1; tickq_session=n0nce.17.mac; b=2")).toBe("n0nce.17.mac");
    expect(await read("xtickq_session=forged.1.mac;tickq_session_x=forged.2.mac")).toBeNull();
    expect(await read("  tickq_session = n.1.m ")).toBe("n.1.m");
  });

  it("skips a value session.ts never writes, for the next one", async () => {
    expect(await read('tickq_session="a b"; tickq_session=n.1.m')).toBe("n.1.m");
    expect(await read("tickq_session=%3Cscript%3E")).toBeNull();
  });

  it("reads every value of the name, most specific path first, at most 8", async () => {
    const all = async (cookie: string) =>
      ((await (await app.request("/read", { headers: { cookie } })).json()) as { all: string[] }).all;
    expect(await all("tickq_session=junk; a=1; tickq_session=n.1.m")).toEqual(["junk", "n.1.m"]);
    expect(await all(Array.from({ length: 12 }, (_, i) => `tickq_session=v${i}`).join("; "))).toHaveLength(8);
  });

  it("is written HttpOnly, SameSite=Strict, for its path, Secure when asked", async () => {
    const plain = (await app.request("/write")).headers.get("set-cookie");
    expect(plain).toBe(
      "tickq_session=n0nce.1700000000000.m-a_c; Max-Age=43200; Path=/api/dashboard; HttpOnly; SameSite=Strict",
    );
    expect((await app.request("/write?secure=1")).headers.get("set-cookie")).toContain(
      "; HttpOnly; Secure; SameSite=Strict",
    );
  });
});
