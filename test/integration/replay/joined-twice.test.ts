// The joined forms (lib/common/joined.lua): a step's fetched jobs come back as
// one string a group, and an ack's successes go as one argument a group, each
// joined by "\x1e". Run twice with the same arguments, a step settles its
// joined successes once and its replay answers the same jobs, joined as the
// first run joined them; a job whose text holds the separator (a foreign
// client's, not JSON) travels one value a job, both ways, and is settled and
// fetched as any other.
import { describe, expect, it } from "vitest";
import { encode, JOIN_SEPARATOR } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { ENQUEUE_KEYS, enqueueArgs, rawAcks, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const job = (n: number) => JSON.stringify({ class: "x", args: [n], jid: `j${n}`, queue: "default", retry: true });
/** Not JSON: a raw record separator inside, as no JSON encoder writes it. */
const foreign = (n: number) => `{"class":"x","args":["a${JOIN_SEPARATOR}b"],"jid":"f${n}","queue":"default"}`;
const LEASE = 5_000;

describe.each(adapterCases)("joined jobs run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "replay");
  const { call, callTwice, run } = scriptCalls(h);
  let token = 0;
  const enqueue = (jobs: string[]) =>
    call(
      protocol.enqueue,
      ENQUEUE_KEYS,
      enqueueArgs(
        `t${token++}`,
        jobs.map((j) => ({ job: j })),
      ),
    );
  const begin = (tick: string) =>
    call(protocol.begin, beginKeys({ tick, leaseMs: LEASE }), beginNamed({ tick, leaseMs: LEASE }));
  const inproc = () => h.redis.lrange(`${h.prefix}inproc:t1:default`, 0, -1);

  it("step: joined successes settle once, and the replay answers the same jobs, joined", async () => {
    await enqueue(Array.from({ length: 25 }, (_, n) => job(n)));
    await begin("t1");
    const first = await inproc();
    const args = stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: rawAcks({ default: first }) });
    // The successes went as "j10" and one value.
    expect(encode(protocol.step, tickKeys("t1"), args).args).toContain(`j${first.length}`);
    const raw = await run(protocol.step.script, ...keysAndArgs(args));
    // The fetched group's jobs came back as one string, oldest first.
    const group = (raw as unknown[])[3] as unknown[];
    expect(typeof group[1]).toBe("string");
    expect((group[1] as string).split(JOIN_SEPARATOR)).toEqual([...(await inproc())].reverse());
    const again = await run(protocol.step.script, ...keysAndArgs(args));
    expect(again).toEqual(raw);
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBe("10");
    const { first: stepped, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 3, acks: rawAcks({ default: await inproc() }) }),
    );
    expect(stepped.fetched[0]!.jobs).toHaveLength(5);
    expect(after["stat:processed"]).toBe("20");
    expect(after["inproc:t1:default"]).toHaveLength(5);
  });

  it("step: a job holding the separator goes one value a job and comes back in a list, settled once", async () => {
    await enqueue([job(1), foreign(2), job(3), foreign(4), job(5), job(6)]);
    await begin("t1");
    const held = await inproc();
    expect(held).toHaveLength(6);
    const args = stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: rawAcks({ default: held.slice(0, 3) }) });
    // Three successes, one holding the separator: the count, then one value each.
    const sent = encode(protocol.step, tickKeys("t1"), args).args;
    expect(held.slice(0, 3).some((j) => j.includes(JOIN_SEPARATOR))).toBe(true);
    expect(sent.slice(5, 12)).toEqual([1, "default", "", 3, ...held.slice(0, 3)]);
    const { first: stepped, after } = await callTwice(protocol.step, tickKeys("t1"), args);
    expect(after["stat:processed"]).toBe("3");
    expect(after["inproc:t1:default"]).toEqual(held.slice(3));
    expect(stepped.fetched).toEqual([]);
    // A fetch that meets one comes back as a list, the texts byte for byte.
    await enqueue([job(7), foreign(8)]);
    const queued = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    const { first: next } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 3, acks: rawAcks({ default: held.slice(3) }) }),
    );
    expect(next.fetched[0]!.jobs).toEqual([...queued].reverse());
    expect(next.fetched[0]!.jobs[1]).toContain(JOIN_SEPARATOR);
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBe("6");
  });

  it("step: an ack whose joined count the separators do not match is refused and writes nothing", async () => {
    await enqueue([job(1), job(2)]);
    await begin("t1");
    const held = await inproc();
    const { keys, args } = encode(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, acks: rawAcks({ default: held }) }),
    );
    const at = args.indexOf("j2");
    args[at] = "j3";
    const before = await inproc();
    await expect(run(protocol.step.script, keys, args)).rejects.toThrow(/3 joined texts announced, 2 sent/);
    expect(await inproc()).toEqual(before);
    expect(await h.redis.get(`${h.prefix}stat:processed`)).toBeNull();
  });

  function keysAndArgs(args: ReturnType<typeof stepArgs>): [string[], (string | number)[]] {
    const encoded = encode(protocol.step, tickKeys("t1"), args);
    return [encoded.keys, encoded.args];
  }
});
