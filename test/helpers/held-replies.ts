// An adapter that holds back one call of a chosen script once armed, as a
// slow network would: `holdReplies` lets Redis run the call (its writes are
// done) and holds its reply; `holdRequests` holds the call itself, so Redis
// runs it only when the test releases it. Every other call goes through at once.
import { sha1Hex } from "../../src/sha1.js";
import type { LuaScript, RedisAdapter, RedisReply } from "../../src/redis/types.js";

export interface HeldReplies {
  adapter: RedisAdapter;
  /** The next call of the script is held once Redis answered it. */
  arm(): void;
  /** Resolves once an armed call is held: its reply (Redis ran it), or the call itself (Redis has not). */
  held(): Promise<void>;
  /** Hands the held reply to its caller (now, or as soon as it is held). */
  release(): void;
}

export function holdReplies(inner: RedisAdapter, script: LuaScript): HeldReplies {
  return holdCall(inner, script, "reply");
}

export function holdRequests(inner: RedisAdapter, script: LuaScript): HeldReplies {
  return holdCall(inner, script, "request");
}

function holdCall(inner: RedisAdapter, script: LuaScript, what: "request" | "reply"): HeldReplies {
  const sha = sha1Hex(script.text);
  let armed = false;
  let onHeld: () => void = () => {};
  const heldOnce = new Promise<void>((resolve) => (onHeld = resolve));
  let onRelease: () => void = () => {};
  const released = new Promise<void>((resolve) => (onRelease = resolve));
  const through = async (isScript: boolean, call: () => Promise<RedisReply>): Promise<RedisReply> => {
    if (!(isScript && armed)) return call();
    armed = false;
    if (what === "request") {
      onHeld();
      await released;
      return call();
    }
    let reply: RedisReply;
    try {
      reply = await call();
    } catch (error) {
      // Not run (NOSCRIPT the first time Redis meets a script: runScript sends it again by EVAL): the next call is held.
      armed = true;
      throw error;
    }
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
