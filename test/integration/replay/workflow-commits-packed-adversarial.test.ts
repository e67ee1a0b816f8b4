// Packed workflow commits (src/protocol/define.ts `packed`) hold any text a step may name or return: NUL, the
// unit separator, a leading "j", empty values, unicode, many steps, many commits (committed as digits), and a
// section sent apart whose first id starts with "j"; each written as sent, resent once.
import { describe, expect, it } from "vitest";
import { encode, JOIN_SEPARATOR } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import type { Commit } from "../../../src/workflows/execute.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { workflowTickArgs as tickArgs } from "../../helpers/tick-calls.js";

const LEASE = 60_000;

describe.each(adapterCases)("packed workflow commits with odd values over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-packadv");
  const { call, callTwice, run } = scriptCalls(h);
  const tickKeys = { ticks: "ticks", lease: "tick:T" };
  const start = (id: string) => run(protocol.workflow_start.script, [`wf:run:${id}`], [id, "wf", "null"]);
  const runField = (id: string, field: string) => h.redis.hget(`${h.prefix}wf:run:${id}`, field);

  async function claim(ids: string[]): Promise<Map<string, string>> {
    await h.redis.hset(`${h.prefix}tick:T`, "seq", 1);
    await h.redis.pexpire(`${h.prefix}tick:T`, LEASE);
    for (const id of ids) await start(id);
    const { claimed } = await call(protocol.workflow_tick, tickKeys, tickArgs(1, ids.length, []));
    return new Map(claimed.map(({ id, fence }) => [id, fence]));
  }

  const odd = ["", "j", "j3", "\x1f", "a\x00b", "\x00", "é😀中", "\x1f\x1f", "jj\x1fx", "\u2028"];

  it("steps named and holding odd texts are written byte for byte; an odd output ends the run", async () => {
    const ids = ["j1", "jx", "\x1fid", "ü"];
    const fences = await claim(ids);
    const commits: Commit[] = ids.map((id, k) => ({
      id,
      fence: fences.get(id)!,
      disposition: k === 1 ? "d" : "c",
      extra: k === 1 ? "j\x00\x1f" : "",
      steps: odd.map((name, i) => ({ name: `${name}#${i}`, record: odd[(i + k) % odd.length]! })),
      parks: [],
    }));
    const sent = encode(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits)).args.slice(4);
    expect(String(sent[0])).toMatch(/^j\d+$/);
    const { first } = await callTwice(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits));
    expect(first.committed).toEqual([1, 1, 1, 1]);
    for (const [k, id] of ids.entries()) {
      const stored = await h.redis.hgetall(`${h.prefix}wf:steps:${id}`);
      expect(stored).toEqual(Object.fromEntries(odd.map((name, i) => [`${name}#${i}`, odd[(i + k) % odd.length]])));
    }
    expect(await runField("jx", "status")).toBe("completed");
    expect(await runField("jx", "output")).toBe("j\x00\x1f");
  });

  it("twelve commits answer twelve flags, stale ones 0, in order", async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `r${i}`);
    const fences = await claim(ids);
    const commits: Commit[] = ids.map((id, k) => ({
      id,
      fence: k % 3 === 0 ? "999999" : fences.get(id)!,
      disposition: "c",
      extra: "",
      steps: [],
      parks: [],
    }));
    const { first } = await callTwice(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits));
    expect(first.committed).toEqual(ids.map((_, k) => (k % 3 === 0 ? 0 : 1)));
  });

  it("a commit of 150 steps and one of none, the last with parks whose last value is empty", async () => {
    const fences = await claim(["a", "b"]);
    const many = Array.from({ length: 150 }, (_, i) => ({ name: `s${i}`, record: i % 2 ? "" : `r${i}` }));
    const commits: Commit[] = [
      { id: "a", fence: fences.get("a")!, disposition: "c", extra: "", steps: many, parks: [] },
      {
        id: "b",
        fence: fences.get("b")!,
        disposition: "p",
        extra: "",
        steps: [],
        parks: [
          { step: "w", kind: "w", seq: 0, ms: "", event: "e", match: "" },
          { step: "", kind: "s", seq: 1, ms: "60000", event: "", match: "" },
        ],
      },
    ];
    const { first } = await callTwice(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits));
    expect(first.committed).toEqual([1, 1]);
    expect(await h.redis.hlen(`${h.prefix}wf:steps:a`)).toBe(150);
    expect(await h.redis.hget(`${h.prefix}wf:steps:a`, "s1")).toBe("");
    expect(await h.redis.hget(`${h.prefix}wf:steps:a`, "s148")).toBe("r148");
    expect((await h.redis.hkeys(`${h.prefix}wf:park:b`)).sort()).toEqual(["", "w"]);
    expect(await runField("b", "status")).toBe("waiting");
  });

  it("a section sent apart (a record holds the separator) whose first id starts with j is read as counted", async () => {
    const fences = await claim(["j2", "jj"]);
    const commits: Commit[] = ["j2", "jj"].map((id) => ({
      id,
      fence: fences.get(id)!,
      disposition: "c",
      extra: "",
      steps: [{ name: "j", record: `x${JOIN_SEPARATOR}y` }],
      parks: [],
    }));
    const sent = encode(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits)).args.slice(4);
    expect(sent[0]).toBe(2);
    const { first } = await callTwice(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits));
    expect(first.committed).toEqual([1, 1]);
    expect(await h.redis.hget(`${h.prefix}wf:steps:jj`, "j")).toBe(`x${JOIN_SEPARATOR}y`);
  });
  it("120 commits answer 120 flags; a commit holding a 2 MB record and a 1 MB output between small ones", async () => {
    const ids = Array.from({ length: 120 }, (_, i) => `r${i}`);
    const fences = await claim(ids);
    const big = "é".repeat(1024 * 1024);
    const out = JSON.stringify("j".repeat(1024 * 1024));
    const commits: Commit[] = ids.map((id, k) => ({
      id,
      fence: k % 7 === 0 ? "0" : fences.get(id)!,
      disposition: k === 60 ? "d" : "c",
      extra: k === 60 ? out : "",
      steps: [{ name: "s", record: k === 60 ? big : `${k}` }],
      parks: [],
    }));
    const { first } = await callTwice(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits));
    expect(first.committed).toEqual(ids.map((_, k) => (k % 7 === 0 ? 0 : 1)));
    expect(await h.redis.hget(`${h.prefix}wf:steps:r60`, "s")).toBe(big);
    expect(await runField("r60", "output")).toBe(out);
    const missing: string[] = [];
    for (const [k, id] of ids.entries())
      if (k % 7 !== 0 && (await h.redis.hget(`${h.prefix}wf:steps:${id}`, "s")) === null) missing.push(id);
    expect(missing).toEqual([]);
    expect(await h.redis.hget(`${h.prefix}wf:steps:r118`, "s")).toBe("118");
    expect(await h.redis.hexists(`${h.prefix}wf:steps:r7`, "s")).toBe(0);
  });
});
