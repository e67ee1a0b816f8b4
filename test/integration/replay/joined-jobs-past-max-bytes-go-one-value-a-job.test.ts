// A step's fetched jobs come back joined in one string a queue (lib/common/joined.lua), but a
// group longer than joined.MAX_BYTES (16 MiB) together comes back one value a job, first run and
// replay alike: a client reads a bulk string as one string, and Node's longest is 2^29 - 24 units
// (`require("buffer").constants.MAX_STRING_LENGTH`). Joined past it, ioredis and node-redis failed
// the reply, the tick resent the step, its replay answered the same joined jobs, and those jobs,
// each of which fits alone (Sidekiq pushes large ones; maxJobBytes may be raised), never ran.
import { describe, expect, it } from "vitest";
import { encode } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCase } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const MIB = 1024 * 1024;
/** A Sidekiq-style push of 6 MiB: three of them are past joined.MAX_BYTES together. */
const big = (n: number) => JSON.stringify({ class: "x", args: ["y".repeat(6 * MIB)], jid: `b${n}`, queue: "default" });

describe("jobs past joined's bytes over ioredis", () => {
  const h = useHarness(adapterCase("ioredis"), "joined-max");
  const { call, run } = scriptCalls(h);

  it("step: a group of fetched jobs over 16 MiB together comes back one value a job, and so does its replay", async () => {
    await call(
      protocol.begin,
      beginKeys({ tick: "t1", leaseMs: LEASE }),
      beginNamed({ tick: "t1", leaseMs: LEASE, batch: 0 }),
    );
    const jobs = [big(1), big(2), big(3)];
    // Sidekiq's push: LPUSH at the queue's left, the oldest at its right end.
    await h.redis.lpush(`${h.prefix}queue:default`, ...jobs);
    const { keys, args } = encode(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, batch: 3 }),
    );
    const first = (await run(protocol.step.script, keys, args)) as unknown[];
    const group = first[3] as unknown[];
    expect(group[0]).toBe("default");
    expect(Array.isArray(group[1])).toBe(true);
    expect(group[1]).toEqual(jobs);
    const again = (await run(protocol.step.script, keys, args)) as unknown[];
    expect((again[3] as unknown[])[1]).toEqual(jobs);
  });
});
