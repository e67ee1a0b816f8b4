// Fan-out on the Node server never sends to a host a request names: hostile
// Host headers and absolute-form request lines on a public route that
// enqueues with a kick leave a listener at that host untouched, while the
// backlog still fans out through the server's own address. A fan-out
// request carries a credential for its one tick, never the secret.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { startServer } from "../../../src/platforms/node/server.js";
import { signTick, TICK_AUTH_HEADER, verifyTick, TICK_CREDENTIAL_TTL_MS } from "../../../src/http/tick-credential.js";
import { TICK_ID_HEADER } from "../../../src/http/fanout.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { redisUrl, sleep } from "../../helpers/redis.js";
import { rawRequest, startRecorder, startTrap } from "./listeners.js";

const SECRET = "fanout-secret-0123456789";

describe("fan-out on the Node server", () => {
  const h = useHarness(adapterCases[0]!, "sec-fanout");

  it("sends nothing to a host named by a request's Host header or absolute-form request line", async () => {
    const trap = await startTrap();
    let done = 0;
    const tickCalls: (string | undefined)[] = [];
    const server = await startServer({
      redisUrl: redisUrl(),
      prefix: h.prefix,
      port: 0,
      secret: SECRET,
      maxParallel: 3,
      tickEveryMs: 0,
      kick: { max: 1 },
      tick: { budgetMs: 150, batch: 5 },
      jobs: { nap: async () => void (await sleep(10), done++) },
      routes: (app) => {
        app.use("/tick", async (c, next) => {
          tickCalls.push(c.req.header("authorization"));
          await next();
        });
        app.post("/signup", async (c) => c.json({ jid: await c.var.tq.enqueue("nap", [], { kick: true }) }, 201));
      },
    });
    try {
      await server.tickq.enqueueBulk(
        Array.from({ length: 150 }, () => ({ name: "nap" as const, args: [] as [], kick: false })),
      );
      const port = Number(new URL(server.url).port);
      const hostile = `127.0.0.1:${trap.port}`;
      expect(await rawRequest(port, `POST /signup HTTP/1.1\r\nhost: ${hostile}`)).toBe(201);
      expect(await rawRequest(port, `POST http://${hostile}/signup HTTP/1.1\r\nhost: ${hostile}`)).toBe(201);
      for (let i = 0; i < 400 && done < 152; i++) await sleep(25);
    } finally {
      await server.close();
      await trap.close();
    }
    expect(trap.connections()).toBe(0);
    expect(done).toBe(152); // the backlog drained
    expect(tickCalls.length).toBeGreaterThan(0); // it did fan out, to the server itself
    expect(tickCalls.every((a) => a === undefined)).toBe(true); // and never with the secret
  }, 40_000);

  it("sends to publicUrl a credential for one tick, which opens nothing else and expires", async () => {
    const recorder = await startRecorder();
    const server = await startServer({
      redisUrl: redisUrl(),
      prefix: h.prefix,
      port: 0,
      secret: SECRET,
      maxParallel: 2,
      tickEveryMs: 0,
      publicUrl: `${recorder.url}/`,
      tick: { budgetMs: 100, batch: 2 },
      jobs: { nap: async () => void (await sleep(20)) },
    });
    try {
      await server.tickq.enqueueBulk(Array.from({ length: 40 }, () => ({ name: "nap" as const, args: [] as [] })));
      expect(
        (await fetch(`${server.url}/tick`, { method: "POST", headers: { authorization: `Bearer ${SECRET}` } })).status,
      ).toBe(200);
      for (let i = 0; i < 100 && recorder.requests.length === 0; i++) await sleep(20);
      expect(recorder.requests.length).toBeGreaterThan(0);
      const sent = recorder.requests[0]!;
      expect(sent.method).toBe("POST");
      expect(sent.url).toBe("/tick?wait=0");
      expect(sent.headers.authorization).toBeUndefined();
      expect(JSON.stringify(sent.headers)).not.toContain(SECRET);
      const tickId = sent.headers[TICK_ID_HEADER] as string;
      const credential = sent.headers[TICK_AUTH_HEADER] as string;
      expect(await verifyTick([SECRET], tickId, credential)).toBe(true);

      const replay = (path: string, method: string, id = tickId) =>
        fetch(`${server.url}${path}`, { method, headers: { [TICK_ID_HEADER]: id, [TICK_AUTH_HEADER]: credential } });
      const others: [string, string][] = [
        ["/stats", "GET"],
        ["/jobs?state=queued", "GET"],
        ["/jobs?state=queued", "DELETE"],
        ["/queues/default/pause", "POST"],
        ["/tick", "GET"],
      ];
      for (const [path, method] of others) {
        expect((await replay(path, method)).status, `${method} ${path}`).toBe(401);
      }
      expect((await replay("/tick", "POST", "another-tick-id")).status).toBe(401);
      expect((await replay("/tick?wait=0", "POST")).status).toBe(202); // the one tick it was made for
    } finally {
      await server.close();
      await recorder.close();
    }
    const signedAt = Date.now();
    expect(
      await verifyTick([SECRET], "t1", await signTick(SECRET, "t1", signedAt), signedAt + TICK_CREDENTIAL_TTL_MS + 1),
    ).toBe(false);
    expect(await verifyTick(["another-secret-0123456789"], "t1", await signTick(SECRET, "t1"))).toBe(false);
  }, 30_000);

  it("refuses fan-out at start when nothing configured says where to send it, naming the setting", () => {
    const tickq = h.make({});
    expect(() => createApp({ tickq, secrets: [SECRET], maxParallel: 2 })).toThrow(/TICKQ_PUBLIC_URL/);
    expect(() =>
      createApp({ tickq, secrets: [SECRET], maxParallel: 2, publicUrl: "https://user:pw@example.com" }),
    ).toThrow(/no user or password/);
    expect(() =>
      createApp({ tickq, secrets: [SECRET], maxParallel: 2, publicUrl: "https://example.com/api" }),
    ).not.toThrow();
    expect(() => createApp({ tickq, secrets: [SECRET] })).not.toThrow(); // fan-out off
  });
});
