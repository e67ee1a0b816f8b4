// A job pushed raw whose descriptor has the one-unique-key shape but two words
// where its key goes ("good default u|u:k x|") and that was parked: when the
// holder's ack frees the key, unpark sends it to the dead set whole, with why,
// and the ack goes through; an error after the RPOP would lose the job.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { acksOf, finishArgs, jobsOf, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const beginArgs = (tick: string, fetch: number) => beginNamed({ tick, leaseMs: LEASE, batch: fetch });
const job = (jid: string) =>
  JSON.stringify({
    tickq_flow: "good default u|u:k x|",
    class: "good",
    args: [jid],
    jid,
    queue: "default",
    retry: true,
  });

describe.each(adapterCases)("a one-key-shaped descriptor with two keys over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "adv2-malformed-parked");
  const { call } = scriptCalls(h);
  const key = (name: string) => `${h.prefix}${name}`;

  it("the parked duplicate is not lost when the holder's ack frees the key, and the ack goes through", async () => {
    await h.redis.lpush(key("queue:default"), job("m1"), job("m2"));
    const [held] = jobsOf((await call(protocol.begin, tickKeys("t0"), beginArgs("t0", 1))).fetched);
    expect(JSON.parse(held!.raw).jid).toBe("m1");
    await call(protocol.begin, tickKeys("t1"), beginArgs("t1", 10));
    expect(await h.redis.llen(key("flow:park:u:k x"))).toBe(1); // parked behind m1
    const acked = await call(
      protocol.finish,
      tickKeys("t0"),
      finishArgs({ tick: "t0", leaseMs: LEASE, call: 2, acks: acksOf([{ kind: "succeeded", job: held! }]) }),
    ).then(
      () => "ok",
      (error: unknown) => String(error),
    );
    const where = [
      ...(await h.redis.lrange(key("queue:default"), 0, -1)),
      ...(await h.redis.lrange(key("flow:park:u:k x"), 0, -1)),
      // a dead entry keeps the unreadable job whole in `raw`
      ...(await h.redis.zrange(key("dead"), "0", "-1")).map((entry) => String(JSON.parse(entry).raw)),
      ...(await h.redis.zrange(key("retry"), "0", "-1")),
      ...(await h.redis.lrange(key("inproc:t1:default"), 0, -1)),
    ];
    expect.soft(where.some((text) => text.includes('"m2"'))).toBe(true); // m2 is somewhere
    expect(acked).toBe("ok");
  });
});
