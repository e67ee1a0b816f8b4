// restAdapter's own behaviour against the local Upstash-compatible server:
// what it refuses, how it reports a server's refusal, and its bounded resend
// after a network failure. The shared suites (conformance, scripts, replay,
// every core suite through test/helpers/adapters.ts) run it as "rest".
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { restAdapter } from "../../../src/redis/rest.js";
import { TickqError } from "../../../src/index.js";
import { freePort } from "../../../src/platforms/node/find-redis.js";

const endpoint = () => ({ url: inject("restUrl"), token: inject("restToken") });

describe("restAdapter", () => {
  it.each([
    ["no url", { url: "", token: "t" }, /url must be the http\(s\) REST URL/],
    [
      "a redis:// url, naming the TCP client that takes it",
      { url: "redis://127.0.0.1:6379", token: "t" },
      /url must be the http\(s\) REST URL.*a redis:\/\/ URL is for a TCP client: pass `redis: ioredisAdapter\(new Redis\(url\)\)`/,
    ],
    ["no token", { url: "http://127.0.0.1:1", token: "" }, /token is missing/],
    ["a negative retries", { url: "http://127.0.0.1:1", token: "t", retries: -1 }, /retries must be a whole number/],
  ])("refuses %s with a BAD_OPTIONS TickqError", (_label, options, message) => {
    expect(() => restAdapter(options)).toThrow(TickqError);
    expect(() => restAdapter(options)).toThrow(message);
  });

  it("sends the command as a JSON array with the bearer token and base64 encoding, through the fetch it is given", async () => {
    const seen: Request[] = [];
    const adapter = restAdapter({
      ...endpoint(),
      url: `${endpoint().url}/`,
      fetch: (request) => (seen.push(request.clone()), fetch(request)),
    });
    expect(await adapter.eval("return {ARGV[1], KEYS[1]}", ["k"], ["é"])).toEqual(["é", "k"]);
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.method).toBe("POST");
    expect(request!.url).toBe(`${endpoint().url}/`);
    expect(request!.headers.get("authorization")).toBe(`Bearer ${endpoint().token}`);
    expect(request!.headers.get("upstash-encoding")).toBe("base64");
    expect(await request!.json()).toEqual(["EVAL", "return {ARGV[1], KEYS[1]}", 1, "k", "é"]);
  });

  it("rejects EVALSHA of an unknown script with Redis' NOSCRIPT message (runScript then EVALs)", async () => {
    const adapter = restAdapter(endpoint());
    await expect(adapter.evalsha("0".repeat(40), [], [])).rejects.toThrow(/^NOSCRIPT/);
  });

  it("a wrong token is a rejection naming the token", async () => {
    const adapter = restAdapter({ ...endpoint(), token: "wrong" });
    await expect(adapter.eval("return 1", [], [])).rejects.toThrow(/Unauthorized: check the token/);
  });

  it("an answer that is not the protocol's JSON is a rejection with its status and start", async () => {
    const adapter = restAdapter({
      ...endpoint(),
      fetch: async () => new Response("<html>Bad Gateway</html>", { status: 502 }),
    });
    await expect(adapter.eval("return 1", [], [])).rejects.toThrow("Redis REST answered 502: <html>Bad Gateway</html>");
  });

  it("a reply that is not base64 is a rejection, never a silently different string", async () => {
    const adapter = restAdapter({ ...endpoint(), fetch: async () => Response.json({ result: ["héllo"] }) });
    await expect(adapter.eval("return 1", [], [])).rejects.toThrow(/not base64/);
  });

  it("resends after a network failure, at most `retries` times, then rejects naming the URL, the cause and how often it tried", async () => {
    let attempts = 0;
    const counting = (request: Request) => (attempts++, fetch(request));
    const unreachable = restAdapter({
      url: `http://127.0.0.1:${await freePort()}`,
      token: "t",
      retries: 2,
      backoffMs: () => 0,
      fetch: counting,
    });
    // The URL and the network's own reason, so a stopped server reads as one.
    await expect(unreachable.eval("return 1", [], [])).rejects.toThrow(
      /^Redis REST request to http:\/\/127\.0\.0\.1:\d+ failed \(3 attempts\): fetch failed: connect ECONNREFUSED/,
    );
    expect(attempts).toBe(3);

    attempts = 0;
    const flaky = restAdapter({
      ...endpoint(),
      retries: 2,
      backoffMs: () => 0,
      fetch: (request) => (++attempts === 1 ? Promise.reject(new TypeError("fetch failed")) : fetch(request)),
    });
    expect(await flaky.eval("return 'after one resend'", [], [])).toBe("after one resend");
    expect(attempts).toBe(2);
  });

  it("does not resend a request the server answered, even with an error", async () => {
    let attempts = 0;
    const adapter = restAdapter({ ...endpoint(), retries: 3, fetch: (request) => (attempts++, fetch(request)) });
    await expect(adapter.eval("return redis.call('NOPE')", [], [])).rejects.toThrow(
      /Unknown Redis command|unknown command/i,
    );
    expect(attempts).toBe(1);
  });
});
