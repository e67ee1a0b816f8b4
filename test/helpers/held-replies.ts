// An adapter that holds back the reply of one call of a chosen script once
// armed: Redis runs the call (its writes are done), and the caller hears of
// it only when the test releases it, as a slow network would deliver it.
// Every other call goes through at once.
import { sha1Hex } from "../../src/sha1.js";
import type { LuaScript, RedisAdapter, RedisReply } from "../../src/redis/types.js";

export interface HeldReplies {
  adapter: RedisAdapter;
  /** The next call of the script is held once Redis answered it. */
  arm(): void;
  /** Resolves once an armed call ran in Redis and its reply is held. */
  held(): Promise<void>;
  /** Hands the held reply to its caller (now, or as soon as it is held). */
  release(): void;
}

export function holdReplies(inner: RedisAdapter, script: LuaScript): HeldReplies {
  const sha = sha1Hex(script.text);
  let armed = false;
  let onHeld: () => void = () => {};
  const heldOnce = new Promise<void>((resolve) => (onHeld = resolve));
  let onRelease: () => void = () => {};
  const released = new Promise<void>((resolve) => (onRelease = resolve));
  const through = async (isScript: boolean, call: () => Promise<RedisReply>): Promise<RedisReply> => {
    if (!(isScript && armed)) return call();
    armed = false;
    const reply = await call();
    onHeld();
    await released;
    return reply;
  };
  return {
    adapter: {
      ...inner,
      cluster: inner.cluster,
      wait: inner.wait?.bind(inner),
      evalsha: async (s, keys, args) => through(s === (await sha), () => inner.evalsha(s, keys, args)),
      eval: (text, keys, args) => through(text === script.text, () => inner.eval(text, keys, args)),
    },
    arm: () => void (armed = true),
    held: () => heldOnce,
    release: () => onRelease(),
  };
}
