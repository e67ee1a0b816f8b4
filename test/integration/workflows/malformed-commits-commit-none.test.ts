// Workflow commits are read whole by lib/common/packed.lua's nested reader before the first is committed:
// a packed value that does not hold what its head announces (a value more announced, its last value
// missing, an item more than its count), or a counted section whose counts ARGV does not hold, fails the
// call with every run as it was, the commits before the malformed one included.
import { describe, expect, it } from "vitest";
import { encode, JOIN_SEPARATOR } from "../../../src/protocol/define.js";
import * as protocol from "../../../src/protocol/index.js";
import type { Commit } from "../../../src/workflows/execute.js";
import { adapterCase } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { workflowTickArgs as tickArgs } from "../../helpers/tick-calls.js";

const sep = JOIN_SEPARATOR;
const tickKeys = { ticks: "ticks", lease: "tick:T" };

describe("malformed workflow commits", () => {
  const h = useHarness(adapterCase("ioredis"), "wf-commitbad");
  const { call, run } = scriptCalls(h);

  /** Two runs claimed by tick T, each committed with one step (its record as given). */
  async function commitsOfTwo(record: string): Promise<Commit[]> {
    await h.redis.hset(`${h.prefix}tick:T`, "seq", 1);
    await h.redis.pexpire(`${h.prefix}tick:T`, 60_000);
    for (const id of ["a", "b"]) await run(protocol.workflow_start.script, [`wf:run:${id}`], [id, "wf", "null"]);
    const { claimed } = await call(protocol.workflow_tick, tickKeys, tickArgs(1, 2, []));
    expect(claimed).toHaveLength(2);
    return claimed.map(({ id, fence }) => ({
      id,
      fence,
      disposition: "c",
      extra: "",
      steps: [{ name: "s", record }],
      parks: [],
    }));
  }

  it.each([
    ["announces a value more than it holds", (head: string, s: string) => [`j${Number(head.slice(1)) + 1}`, s]],
    ["lacks its last value", (head: string, s: string) => [head, s.slice(0, s.lastIndexOf(sep))]],
    [
      "holds an item more than its count",
      (head: string, s: string) => [head, `${s}${sep}c${sep}1${sep}c${sep}${sep}0${sep}0`],
    ],
  ])("a workflow call whose packed commits %s fails, committing neither", async (_, tamper) => {
    const commits = await commitsOfTwo('{"status":"completed"}');
    const sent = encode(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits));
    const args = sent.args.map(String);
    expect(args[4]).toMatch(/^j\d+$/);
    const [head, s] = tamper(args[4]!, args[5]!);
    const before = await snapshot(h.redis, h.prefix);
    await expect(run(protocol.workflow_tick.script, sent.keys, [...args.slice(0, 4), head!, s!])).rejects.toThrow(
      /workflow commits: /,
    );
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });

  it.each([
    ["announces a commit more than ARGV holds", (a: string[]) => ["3", ...a.slice(1)]],
    ["gives its last commit a step ARGV does not hold", (a: string[]) => [...a.slice(0, -4), "2", ...a.slice(-3)]],
    ["gives a fractional count of steps", (a: string[]) => [a[0]!, ...a.slice(1, 5), "0.5", ...a.slice(6)]],
  ])("a workflow call whose counted commits %s fails, committing neither", async (_, tamper) => {
    // A record holding the separator sends the section counted, one ARGV value a value.
    const commits = await commitsOfTwo(`x${sep}y`);
    const sent = encode(protocol.workflow_tick, tickKeys, tickArgs(2, 0, commits));
    const args = sent.args.map(String);
    expect(args[4]).toBe("2");
    const before = await snapshot(h.redis, h.prefix);
    const tampered = [...args.slice(0, 4), ...tamper(args.slice(4))];
    await expect(run(protocol.workflow_tick.script, sent.keys, tampered)).rejects.toThrow(/workflow commits: /);
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });
});
