// What a tick's acks name by place alone (src/tick/passes/ack.ts, lib/tick/ack-jobs.lua by_place):
// a step's whole fetched group of plain jobs goes as "PLACE+COUNT" and no job's text; finish's, a
// group holding a flow job or a job named by reference, a group whose queue another entry names,
// a queue the tick no longer trusts the place of and an ack that keeps results go with their text.
// The groups a reply answers missed are found again, in ack order, to go by text.
import { describe, expect, it } from "vitest";
import { encode } from "../../src/protocol/define.js";
import * as protocol from "../../src/protocol/index.js";
import {
  ackArgs,
  ackOrder,
  type AckTrailers,
  byPlaceAlone,
  type Outcome,
  unplaced,
} from "../../src/tick/passes/ack.js";
import type { FetchedBatch, FetchedJob } from "../../src/tick/passes/fetch.js";

const job = (queue: string, jid: string, batch: FetchedBatch, raw?: string): FetchedJob => ({
  queue,
  raw: raw ?? `{"class":"x","args":[],"jid":"${jid}","queue":"${queue}"}`,
  resurrections: 0,
  interruptions: 0,
  doubts: 0,
  suspect: false,
  batch,
});
const group = (queue: string, place: number, size: number): Outcome[] => {
  const batch = { place, size };
  return Array.from({ length: size }, (_, k) => ({
    kind: "succeeded",
    job: job(queue, `${queue}${place + k}`, batch),
  }));
};
/** A step's acks that doubt no queue's places. */
const trusted: ReadonlySet<string> = new Set();

describe("a step's acks by place alone", () => {
  it("name a whole fetched group of plain jobs by its place and size, no job sent; the wire holds the queue, 'PLACE+COUNT' and 0", () => {
    const acks = ackArgs(group("default", 20, 3), undefined, trusted);
    expect(acks.succeeded).toEqual([{ queue: "default", place: "20+3", jobs: [] }]);
    const tickKeys = { ticks: "P:ticks", lease: "P:tick:t1" };
    const common = { tickId: "t1", leaseMs: 5_000, deadMaxSize: 100, deadMaxAgeSec: 3_600, call: "2" };
    const { args } = encode(protocol.step, tickKeys, { ...common, acks, fetch: { batch: 0, queues: [], picks: [] } });
    expect(args.slice(5, 10)).toEqual([1, "default", "20+3", 0, 0]);
  });

  it("name with their text finish's groups, part of a group, and a queue the tick no longer trusts", () => {
    const whole = group("default", 0, 2);
    expect(ackArgs(whole).succeeded[0]).toMatchObject({ place: "0", jobs: [whole[0]!.job.raw, whole[1]!.job.raw] });
    expect(ackArgs(whole.slice(1), undefined, trusted).succeeded[0]).toMatchObject({
      place: "",
      jobs: [whole[1]!.job.raw],
    });
    expect(ackArgs(whole, undefined, new Set(["default"])).succeeded[0]).toMatchObject({ place: "0" });
    expect(ackArgs(whole, undefined, new Set(["default"])).succeeded[0]!.jobs).toHaveLength(2);
  });

  it("name with their text a group holding a flow job or a job named by reference, or an ack keeping results", () => {
    const batch = { place: 0, size: 2 };
    const plain = job("default", "a", batch);
    const flow = job("default", "f", batch, '{"tickq_flow":{"k":"x"},"class":"x","jid":"f"}');
    const withFlow: Outcome[] = [
      { kind: "succeeded", job: plain },
      { kind: "succeeded", job: flow },
    ];
    expect(ackArgs(withFlow, undefined, trusted).succeeded[0]).toMatchObject({
      place: "0",
      jobs: [plain.raw, flow.raw],
    });
    const large = { ...job("default", "b", batch), ref: `#${"ab".repeat(20)}` };
    const withRef: Outcome[] = [
      { kind: "succeeded", job: plain },
      { kind: "succeeded", job: large },
    ];
    expect(ackArgs(withRef, undefined, trusted).succeeded[0]).toMatchObject({
      place: "0",
      jobs: [plain.raw, large.ref],
    });
    const keeping = (): AckTrailers => ({ results: { keep: 1, ageSec: 60, ttlMs: 0, entries: [] } });
    expect(ackArgs(group("default", 0, 2), keeping, trusted).succeeded[0]!.jobs).toHaveLength(2);
  });

  it("name by place alone only the queues no other entry names", () => {
    // A whole group of "low" beside the failure of a job of its next group.
    const failed = group("low", 1, 1)[0]!.job;
    const mixed: Outcome[] = [
      ...group("default", 0, 2),
      ...group("low", 0, 1),
      { kind: "retry", job: failed, updated: "u", delaySec: 1 },
      ...group("high", 5, 1),
    ];
    const acks = ackArgs(mixed, undefined, trusted);
    expect(acks.succeeded.map((g) => [g.queue, g.place, g.jobs.length])).toEqual([
      ["default", "0+2", 0],
      ["low", "0", 1],
      ["high", "5+1", 0],
    ]);
  });

  it("finds, in ack order, the outcomes of the groups named by place alone that a reply answered missed", () => {
    const outcomes: Outcome[] = [...group("default", 0, 2), ...group("low", 3, 3), ...group("high", 0, 1)];
    const acks = ackArgs(outcomes, undefined, new Set(["high"]));
    expect(acks.succeeded.map((g) => g.place)).toEqual(["0+2", "3+3", "0"]);
    // "low" (entries 3 to 5) not cut; "high" (entry 6) missed by text: no longer listed, not sent again.
    expect(unplaced(acks, outcomes, [3, 4, 5, 6])).toEqual(outcomes.slice(2, 5));
    expect(unplaced(acks, outcomes, [])).toEqual([]);
    expect(unplaced(acks, outcomes, undefined)).toEqual([]);
    expect(byPlaceAlone(acks, outcomes)).toEqual(outcomes.slice(0, 5));
  });

  it("name a batch acked apart (a given-up step's, again in finish) as its own group with place and text, after its queue's others, in ack order", () => {
    const apart = group("default", 4, 2);
    apart[0]!.job.batch!.apart = true;
    const outcomes: Outcome[] = [...group("default", 0, 2), ...apart, ...group("default", 2, 1)];
    const acks = ackArgs(outcomes);
    expect(acks.succeeded.map((g) => [g.queue, g.place, g.jobs.length])).toEqual([
      ["default", "", 3],
      ["default", "4", 2],
    ]);
    expect(ackOrder(outcomes)).toEqual([...outcomes.slice(0, 2), outcomes[4], ...apart]);
    // Alone in finish: its own group still, never named by place alone.
    expect(ackArgs(apart, undefined, trusted).succeeded).toEqual([
      { queue: "default", place: "4", jobs: apart.map((o) => o.job.raw) },
    ]);
  });
});
