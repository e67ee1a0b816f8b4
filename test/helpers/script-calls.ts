// Running tickq's scripts directly under a test's prefix, and the replay
// check every script must pass: run it, snapshot, run it again with the same
// arguments — the state and the reply must be those of one run. A read is
// held to more: the state before it is the state after each run.
import { expect } from "vitest";
import { runScript } from "../../src/redis/adapter.js";
import { decode, encode, type TypedCall } from "../../src/protocol/define.js";
import type { LuaScript, RedisReply } from "../../src/redis/types.js";
import type { Harness } from "./harness.js";
import { snapshot, type Snapshot } from "./snapshot.js";

export interface ScriptCalls {
  /** Runs a script with keys and ARGV[1] under the test's prefix. */
  run(script: LuaScript, keys: string[], args: (string | number)[]): Promise<RedisReply>;
  /** Runs it twice; asserts the second run changed nothing and answered the same. */
  twice(script: LuaScript, keys: string[], args: (string | number)[]): Promise<{ first: RedisReply; after: Snapshot }>;
  /** For a read (its reply may carry the clock): runs it twice, asserts neither run wrote anything; both replies. */
  readsTwice(script: LuaScript, keys: string[], args: (string | number)[]): Promise<[RedisReply[], RedisReply[]]>;
  /** Runs a declared call (src/protocol): keys and args by name, the reply decoded. */
  call<Keys extends object, Args extends object, Reply>(
    call: TypedCall<Keys, Args, Reply>,
    keys: Keys,
    args: Args,
  ): Promise<Reply>;
  /** `readsTwice` for a declared call: both replies decoded. */
  readsCallTwice<Keys extends object, Args extends object, Reply>(
    call: TypedCall<Keys, Args, Reply>,
    keys: Keys,
    args: Args,
  ): Promise<[Reply, Reply]>;
  /** `twice` for a declared call (src/protocol): keys and args by name, the first reply decoded. */
  callTwice<Keys extends object, Args extends object, Reply>(
    call: TypedCall<Keys, Args, Reply>,
    keys: Keys,
    args: Args,
  ): Promise<{ first: Reply; after: Snapshot }>;
}

export function scriptCalls(h: Harness): ScriptCalls {
  const run: ScriptCalls["run"] = (script, keys, args) =>
    runScript(
      h.adapter,
      script,
      keys.map((k) => h.prefix + k),
      [h.prefix, ...args],
      { count: 0 },
      5_000,
    );
  const twice: ScriptCalls["twice"] = async (script, keys, args) => {
    const first = await run(script, keys, args);
    const after = await snapshot(h.redis, h.prefix);
    const second = await run(script, keys, args);
    expect(await snapshot(h.redis, h.prefix)).toEqual(after);
    expect(second).toEqual(first);
    return { first, after };
  };
  const readsTwice: ScriptCalls["readsTwice"] = async (script, keys, args) => {
    const before = await snapshot(h.redis, h.prefix);
    const first = await run(script, keys, args);
    expect(await snapshot(h.redis, h.prefix), "the first run wrote").toEqual(before);
    const second = await run(script, keys, args);
    expect(await snapshot(h.redis, h.prefix), "the second run wrote").toEqual(before);
    return [first as RedisReply[], second as RedisReply[]];
  };
  return {
    run,
    twice,
    readsTwice,
    async call<Keys extends object, Args extends object, Reply>(
      call: TypedCall<Keys, Args, Reply>,
      keys: Keys,
      args: Args,
    ) {
      const encoded = encode(call, keys, args);
      return decode(call, await run(call.script, encoded.keys, encoded.args)) as Reply;
    },
    async readsCallTwice<Keys extends object, Args extends object, Reply>(
      call: TypedCall<Keys, Args, Reply>,
      keys: Keys,
      args: Args,
    ) {
      const encoded = encode(call, keys, args);
      const [first, second] = await readsTwice(call.script, encoded.keys, encoded.args);
      return [decode(call, first), decode(call, second)] as [Reply, Reply];
    },
    async callTwice<Keys extends object, Args extends object, Reply>(
      call: TypedCall<Keys, Args, Reply>,
      keys: Keys,
      args: Args,
    ) {
      const encoded = encode(call, keys, args);
      const { first, after } = await twice(call.script, encoded.keys, encoded.args);
      return { first: decode(call, first) as Reply, after };
    },
  };
}
