// Sends a declared call and reads its reply: the only way TypeScript runs
// an entry script (test/unit/lua-protocol.test.ts checks no caller reads a
// reply by position).
import type { RoundTrips } from "../redis/adapter.js";
import type { LuaScript, RedisReply } from "../redis/types.js";
import { decode, encode, type TypedCall } from "./define.js";

/** What runs a script: the runtime (src/tick/runtime.ts), which puts the prefix first. */
export interface ScriptRunner {
  run(script: LuaScript, keys: string[], args: (string | number)[], trips: RoundTrips): Promise<RedisReply>;
}

export async function runCall<Keys extends object, Args extends object, Reply>(
  runner: ScriptRunner,
  call: TypedCall<Keys, Args, Reply>,
  keys: Keys,
  args: Args,
  trips: RoundTrips = { count: 0 },
): Promise<Reply> {
  const encoded = encode(call, keys, args);
  return decode(call, await runner.run(call.script, encoded.keys, encoded.args, trips)) as Reply;
}
