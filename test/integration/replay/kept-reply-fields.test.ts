// Each numbered call keeps its number and reply in the lease hash fields a tick of any release reads
// (lib/tick/replay-call.lua's remember, one HSET): a call of no lane in seq and reply, with the load it
// carried in load; a lane call in its lane's seq and reply; a call in a lane of one connection also its
// run number in ran and its lane's ran. Each run twice: the second writes nothing.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCase } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 60_000;

describe("the lease fields a kept reply is written to", () => {
  const h = useHarness(adapterCase("ioredis"), "kept-fields");
  const { callTwice } = scriptCalls(h);
  const step = (header: string) => stepArgs({ tick: "t1", leaseMs: LEASE, call: header, batch: 1 });
  // The fields remember may write (the lease holds others: begin's boot stamp, the acks' cuts, …).
  const kept = new Set(["seq", "reply", "load", "ran", ..."abcd".split("").flatMap((l) => [`seq${l}`, `reply${l}`])]);
  for (const lane of "cd") kept.add(`ran${lane}`);
  const fields = async () =>
    Object.keys(await h.redis.hgetall(`${h.prefix}tick:t1`))
      .filter((f) => kept.has(f))
      .sort();

  it("begin, a step, a step with its load, a lane step, a step in a lane of one connection", async () => {
    await h.redis.rpush(`${h.prefix}queue:default`, "j1", "j2", "j3", "j4", "j5");
    const options = { tick: "t1", leaseMs: LEASE, batch: 0 };
    await callTwice(protocol.begin, beginKeys(options), beginNamed(options));
    expect(await fields()).toEqual(["reply", "seq"]);
    await callTwice(protocol.step, tickKeys("t1"), step("2"));
    expect(await fields()).toEqual(["reply", "seq"]);
    expect(await h.redis.hget(`${h.prefix}tick:t1`, "seq")).toBe("2");
    await callTwice(protocol.step, tickKeys("t1"), step("3/1/2"));
    expect(await fields()).toEqual(["load", "reply", "seq"]);
    expect(await h.redis.hget(`${h.prefix}tick:t1`, "load")).toBe("1 3");
    await callTwice(protocol.step, tickKeys("t1"), step("4a"));
    expect(await fields()).toEqual(["load", "ran", "reply", "replya", "seq", "seqa"]);
    await callTwice(protocol.step, tickKeys("t1"), step("5c/0/0"));
    expect(await fields()).toEqual(["load", "ran", "ranc", "reply", "replya", "replyc", "seq", "seqa", "seqc"]);
    expect(await h.redis.hmget(`${h.prefix}tick:t1`, "seqc", "load", "ran", "ranc")).toEqual(["5", "0 1", "2", "2"]);
    // The kept reply is the length-prefixed encoding (lib/tick/replay-call.lua encode_reply), a list first.
    expect(await h.redis.hget(`${h.prefix}tick:t1`, "replyc")).toMatch(/^t\d+:n\d+;/);
  });
});
