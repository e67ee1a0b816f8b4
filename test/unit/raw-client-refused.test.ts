// createTickq refuses a raw ioredis client passed as `redis` with a BAD_OPTIONS
// that says to wrap it in ioredisAdapter: the client has an `evalsha` of
// another shape and a `cluster` command, so it used to be taken for a Redis
// Cluster (a misleading hash-tag error) or, with a tagged prefix, fail at the
// first call with "ERR value is not an integer".
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { TickqError, createTickq } from "../../src/index.js";
import type { RedisAdapter } from "../../src/redis/types.js";

describe("createTickq with a raw client", () => {
  it("refuses a raw ioredis client, naming ioredisAdapter, with or without a hash tag", () => {
    const client = new Redis({ lazyConnect: true });
    for (const prefix of ["tickq:", "{tickq}:"]) {
      let error: unknown;
      try {
        createTickq({ redis: client as unknown as RedisAdapter, prefix, jobs: { work: () => undefined } });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TickqError);
      expect((error as TickqError).code).toBe("BAD_OPTIONS");
      expect((error as TickqError).message).toContain("ioredisAdapter");
    }
    client.disconnect();
  });
});
