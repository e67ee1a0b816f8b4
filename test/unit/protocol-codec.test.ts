// src/protocol/define.ts: a named call becomes the ARGV Lua reads (the
// positional layout the scripts' headers describe, byte for byte), a reply
// becomes named fields, and a wrong call or reply fails with an error that
// names the script and the part.
import { describe, expect, it } from "vitest";
import { decode, encode, JOIN_SEPARATOR } from "../../src/protocol/define.js";
import * as protocol from "../../src/protocol/index.js";

const tickKeys = { ticks: "P:ticks", lease: "P:tick:t1" };
const common = { tickId: "t1", leaseMs: 5_000, deadMaxSize: 100, deadMaxAgeSec: 3_600 };
const fetch = { batch: 10, queues: ["default"], picks: [] };
const noAcks = { succeeded: [], others: { items: [] } };
/** begin's reply type, as runCall gives it. */
type Begun = NonNullable<(typeof protocol.begin)["types"]>["reply"];

describe("encoding a call", () => {
  it("lays a step's parts out in order, each counted section as its count then its items, successes joined in one value", () => {
    const acks = {
      succeeded: [{ queue: "default", place: "", jobs: ["a", "b"] }],
      others: { items: [{ code: "r", queue: "default", job: "c", updated: "c2", delay: 1.5 }] },
    };
    const { keys, args } = encode(protocol.step, tickKeys, { ...common, call: "2", acks, fetch });
    expect(keys).toEqual(["P:ticks", "P:tick:t1"]);
    expect(args).toEqual([
      "t1",
      5_000,
      100,
      3_600,
      "2",
      1,
      "default",
      "",
      "j2",
      "a\x1eb",
      1,
      "r",
      "default",
      "c",
      "c2",
      1.5,
      10,
      1,
      "default",
      0,
    ]);
  });

  it("sends a group's successes one value each when one of them holds the join separator, and a group of none as its count", () => {
    const acks = {
      succeeded: [
        { queue: "default", place: "", jobs: ["a", "b\x1ec"] },
        { queue: "low", place: "", jobs: [] },
      ],
      others: { items: [] },
    };
    const { args } = encode(protocol.step, tickKeys, { ...common, call: "2", acks, fetch });
    expect(args.slice(5, -4)).toEqual([2, "default", "", 2, "a", "b\x1ec", "low", "", 0, 0]);
  });

  it("packs a workflow call's commits in one value after their number of values; apart when one holds the separator or none is sent", () => {
    const commit = (name: string) => ({
      id: "r1",
      fence: "7",
      disposition: "c" as const,
      extra: "",
      steps: [{ name, record: '{"status":"completed"}' }],
      parks: [],
    });
    const args = (commits: ReturnType<typeof commit>[]) =>
      encode(protocol.workflow_tick, tickKeys, { tickId: "t1", call: 3, claim: 0, retentionMs: 9, commits }).args;
    expect(args([commit("s0"), commit("s1")])).toEqual([
      "t1",
      3,
      0,
      9,
      "j17",
      ["2", "r1", "7", "c", "", "1", "s0", '{"status":"completed"}', "0"]
        .concat(["r1", "7", "c", "", "1", "s1", '{"status":"completed"}', "0"])
        .join("\x1e"),
    ]);
    expect(args([commit("s0"), commit("a\x1eb")]).slice(4)).toEqual(
      [2, "r1", "7", "c", "", 1, "s0", '{"status":"completed"}', 0].concat([
        "r1",
        "7",
        "c",
        "",
        1,
        "a\x1eb",
        '{"status":"completed"}',
        0,
      ]),
    );
    expect(args([]).slice(4)).toEqual([0]);
  });

  it("carries the results trailer in the others' count value, its entries after the outcomes", () => {
    const acks = {
      succeeded: [{ queue: "default", place: "", jobs: ["a"] }],
      others: {
        items: [{ code: "d", queue: "default", job: "b", updated: "b2", delay: 0 }],
        results: {
          keep: 10,
          ageSec: 86_400,
          ttlMs: 3_600_000,
          entries: [{ number: 1, state: "succeeded", keep: true, jid: "", members: '"tickq_duration_ms":3' }],
        },
      },
    };
    const { args } = encode(protocol.step, tickKeys, { ...common, call: "2", acks, fetch });
    expect(args.slice(5, -4)).toEqual([
      1,
      "default",
      "",
      "j1",
      "a",
      "1 1 10 86400 3600000",
      "d",
      "default",
      "b",
      "b2",
      0,
      1,
      "succeeded",
      1,
      "",
      '"tickq_duration_ms":3',
    ]);
    const without = encode(protocol.step, tickKeys, {
      ...common,
      call: "2",
      acks: { ...acks, others: { items: acks.others.items } },
      fetch,
    });
    expect(without.args.slice(5, -4)).toEqual([1, "default", "", "j1", "a", 1, "d", "default", "b", "b2", 0]);
  });

  it('carries the metrics trailer after the results one: " m<groups> <retention>", its entries after the results entries', () => {
    const acks = {
      succeeded: [{ queue: "default", place: "", jobs: ["a"] }],
      others: {
        items: [{ code: "r", queue: "default", job: "b", updated: "b2", delay: 30 }],
        results: {
          keep: 0,
          ageSec: 86_400,
          ttlMs: 3_600_000,
          entries: [{ number: 1, state: "succeeded", keep: false, jid: "j1", members: '"tickq_result":1' }],
        },
        metrics: {
          retentionSec: 3_600,
          entries: [{ name: "x", queue: "default", entries: 1, ms: 12, waitMs: 40, durations: "3 1", waits: "4 1" }],
          perItem: [{ name: "x", ms: "7", waitMs: "" }],
        },
      },
    };
    const { args } = encode(protocol.step, tickKeys, { ...common, call: "2", acks, fetch });
    expect(args.slice(5, -4)).toEqual([
      1,
      "default",
      "",
      "j1",
      "a",
      "1 1 0 86400 3600000 m1 3600",
      "r",
      "default",
      "b",
      "b2",
      30,
      1,
      "succeeded",
      0,
      "j1",
      '"tickq_result":1',
      "x",
      "default",
      1,
      12,
      40,
      "3 1",
      "4 1",
      "x",
      "7",
      "",
    ]);
    const { results: _, ...metricsOnly } = acks.others;
    const alone = encode(protocol.step, tickKeys, {
      ...common,
      call: "2",
      acks: { ...acks, others: metricsOnly },
      fetch,
    });
    expect(alone.args.slice(10, 12)).toEqual(["1 m1 3600", "r"]);
    expect(() =>
      encode(protocol.step, tickKeys, {
        ...common,
        call: "2",
        acks: { ...acks, others: { ...metricsOnly, metrics: { ...acks.others.metrics, perItem: [] } } },
        fetch,
      }),
    ).toThrow(/perItem must hold one entry per item/);
  });

  it("sends the Sidekiq beat exactly with the process keys, and the ordered part last", () => {
    const process = { heartbeat: "h", work: "w", workers: "ws" };
    const beat = { number: 3, running: [{ tid: "x", work: "{}" }] };
    const ordered = { names: ["o"], succeeded: [{ name: "o", ids: [{ id: "i", fence: 7 }] }], others: { items: [] } };
    const { keys, args } = encode(
      protocol.finish,
      { ...tickKeys, process },
      {
        ...common,
        call: "4",
        workflows: [],
        beat,
        acks: noAcks,
        queues: ["default"],
        unstartable: {
          budgetMs: 900,
          windowMs: 300_000,
          entries: [{ name: "r", reason: "timeout", queue: "default", limitMs: 4_000, count: 2 }],
        },
        recent: '{"id":"t1","ms":5}',
        ordered,
      },
    );
    expect(keys).toEqual(["P:ticks", "P:tick:t1", "h", "w", "ws"]);
    expect(args).toEqual([
      "t1",
      5_000,
      100,
      3_600,
      "4",
      0, // no workflow commits
      3,
      1,
      "x",
      "{}",
      0,
      0,
      1,
      "default",
      900, // the tick's budget, then what it could not start
      300_000,
      1,
      "r",
      "timeout",
      "default",
      4_000,
      2,
      '{"id":"t1","ms":5}', // the recent ticks' summary
      1,
      "o",
      1,
      "o",
      // the name's acked ids and fences packed in one value (src/protocol/define.ts putPacked)
      "j3",
      ["1", "i", "7"].join(JOIN_SEPARATOR),
      0,
    ]);
  });

  it("refuses a beat without the process keys, a missing part and a mistyped value, naming the script", () => {
    const beat = { number: 1, running: [] };
    expect(() => encode(protocol.extend, { lease: "L" }, { tickId: "t1", leaseMs: 1, load: "", beat })).toThrow(
      /extend.*beat is sent exactly when the optional keys are/,
    );
    expect(() => encode(protocol.pause, { paused: "P" }, { queue: "q" })).toThrow(/pause.*paused must be a boolean/);
    expect(() => encode(protocol.history, { processed: "P" }, { days: Number.NaN })).toThrow(
      /history.*days must be a finite number/,
    );
    expect(() => encode(protocol.clear, {}, { token: "t", keepMs: 1 })).toThrow(/clear.*key set is missing/);
  });
});

describe("decoding a reply", () => {
  it("names a begin reply's fields, its fetch groups and flow part included", () => {
    const reply = [
      1_000,
      2,
      3,
      0,
      1,
      ["default", ["j1", "j2"], [0, 1, 0, 0, 2, 0, 1, 3], 7],
      1,
      "noeviction",
      [1, [], 0],
      [],
      [0, 41, 1],
    ];
    const begun = decode(protocol.begin, reply) as Begun;
    expect(begun).toMatchObject({
      nowMs: 1_000,
      resurrected: 2,
      scheduled: 3,
      moreResurrect: false,
      moreSchedule: true,
      leaseHeld: true,
      policy: "noeviction",
    });
    expect(begun.fetched).toEqual([
      {
        queue: "default",
        jobs: ["j1", "j2"],
        counts: [
          { resurrections: 0, interruptions: 1, suspect: false, doubts: 0 },
          { resurrections: 2, interruptions: 0, suspect: true, doubts: 3 },
        ],
        place: 7,
      },
    ]);
    expect(begun.due).toEqual({ inSync: true, due: [], more: false });
    // A group's jobs may come joined in one string (step.lua, lib/common/joined.lua): the same list.
    const joined = decode(
      protocol.begin,
      reply.map((v, i) => (i === 5 ? ["default", "j1\x1ej2", [0, 1, 0, 0, 2, 0, 1, 3], 7] : v)),
    ) as Begun;
    expect(joined.fetched).toEqual(begun.fetched);
    // Or in chunks, each some jobs joined (a group past 8 KiB): one array holding them, the same list in order.
    const chunked = decode(
      protocol.begin,
      reply.map((v, i) => (i === 5 ? ["default", [["a\x1eb", "c", "d\x1ee"]], [], 0] : v)),
    ) as Begun;
    expect(chunked.fetched[0]!.jobs).toEqual(["a", "b", "c", "d", "e"]);
    const one = decode(
      protocol.begin,
      reply.map((v, i) => (i === 5 ? ["default", "", [], 0] : v)),
    ) as Begun;
    expect(one.fetched[0]!.jobs).toEqual([""]);
    expect(begun.flow).toEqual({ capped: false, fence: 41, parked: true });
  });

  it("leaves missing trailing fields out: a stale begin answers only its first eight", () => {
    const begun = decode(protocol.begin, [5, 0, 0, 0, 0, [], 0, ""]) as Begun;
    expect(begun.leaseHeld).toBe(false);
    expect(begun.due).toBeUndefined();
    expect(begun.flow).toBeUndefined();
  });

  it("reads a workflow call's committed flags from one string of digits, or from an array of numbers", () => {
    type Ticked = NonNullable<(typeof protocol.workflow_tick)["types"]>["reply"];
    const committed = (flags: unknown) =>
      (decode(protocol.workflow_tick, [1, 5, flags, [], 0, []] as never) as Ticked).committed;
    expect(committed("101")).toEqual([1, 0, 1]);
    expect(committed([1, 0])).toEqual([1, 0]);
    expect(committed([])).toEqual([]);
    expect(() => committed("1x")).toThrow(/workflow_tick.*committed/);
  });

  it("reads which variant a locate reply is", () => {
    expect(decode(protocol.locate, ["more", "retry", "17"])).toEqual({ kind: "more", stage: "retry", position: "17" });
    expect(decode(protocol.locate, ["none"])).toEqual({ kind: "none" });
  });

  it("refuses a reply of another shape, naming the script and the field", () => {
    expect(() => decode(protocol.parallel, "OK")).toThrow(/parallel: reply should be an array/);
    expect(() => decode(protocol.ticks, [1, ["id", 1, 2, 3, 4]])).toThrow(/ticks: reply\.ticks should be groups of 6/);
    expect(() => decode(protocol.locate, ["lost"])).toThrow(/locate: reply should be one of found, more, none/);
  });
});
