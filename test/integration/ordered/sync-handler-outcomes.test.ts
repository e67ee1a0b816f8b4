// An ordered handler that returns at once settles with no promise (src/ordered/execute.ts), yet what it
// returns or throws ends the run as an awaited one would: a throw, a rejected promise, a thenable that
// rejects, or a value whose `then` cannot be read (a getter that throws, a revoked proxy) fails the run
// and counts an attempt, as a plain job's does; a Promise subclass and a thenable that fulfils succeed.
import { describe, expect, it } from "vitest";
import { adapterCase } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

class Deferred<T> extends Promise<T> {}

const returns: [string, () => unknown, "succeeded" | "failed"][] = [
  ["a value", () => 42, "succeeded"],
  ["a Promise subclass that fulfils", () => Deferred.resolve(1), "succeeded"],
  // biome-ignore lint/suspicious/noThenProperty: a handler's thenable is the case under test.
  ["a thenable that fulfils", () => ({ then: (ok: (v: unknown) => void) => ok(1) }), "succeeded"],
  [
    "a throw",
    () => {
      throw new Error("sync");
    },
    "failed",
  ],
  ["a rejected promise", () => Promise.reject(new Error("rejected")), "failed"],
  ["a Promise subclass that rejects", () => Deferred.reject(new Error("sub")), "failed"],
  [
    "a thenable that rejects",
    // biome-ignore lint/suspicious/noThenProperty: a handler's thenable is the case under test.
    () => ({ then: (_ok: unknown, no: (e: unknown) => void) => no(new Error("thenable")) }),
    "failed",
  ],
  [
    "a thenable whose then throws",
    () => ({
      // biome-ignore lint/suspicious/noThenProperty: a handler's thenable is the case under test.
      then() {
        throw new Error("then threw");
      },
    }),
    "failed",
  ],
  [
    "an object whose then getter throws",
    () => ({
      // biome-ignore lint/suspicious/noThenProperty: a handler's thenable is the case under test.
      get then() {
        throw new Error("getter threw");
      },
    }),
    "failed",
  ],
  [
    "a revoked proxy",
    () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    },
    "failed",
  ],
];

describe("an ordered handler's return read at once", () => {
  const h = useHarness(adapterCase("ioredis"), "ordered-sync-return");

  it.each(returns.map(([what, perform, ends]) => ({ what, perform, ends })))(
    "$what: $ends",
    async ({ perform, ends }) => {
      const tq = h.make({}, { ordered: { idx: { backoff: () => 0, perform } } });
      await tq.enqueueOrdered("idx", { id: "a", payload: 1 });
      const report = await tq.tick();
      if (ends === "succeeded") {
        expect(report).toMatchObject({ succeeded: 1, failed: 0, requeued: 0 });
        expect((await tq.stats()).ordered.idx).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
      } else {
        expect(report).toMatchObject({ succeeded: 0, failed: 1, retried: 1, requeued: 0 });
        expect(await h.redis.hget(`${h.prefix}o:idx:retries`, "a")).toBe("1");
      }
    },
  );
});
