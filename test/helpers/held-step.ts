// An adapter that holds one step at the client, as an HTTP request held in
// transit (or dropped) would be: once armed, the next step call that names
// `mark` (a job's text, so a step that acks that job) is held, and so is
// every resend of it (the same call number and lane), until the test
// releases them; Redis has not run them then. Their callers give up meanwhile
// (redisTimeoutMs), so the replies go nowhere. `releaseBefore` releases them
// just before a chosen script's call reaches Redis, and waits until Redis
// ran them. Every other call goes through at once.
import { step } from "../../src/protocol/index.js";
import { sha1Hex } from "../../src/sha1.js";
import type { LuaScript, RedisAdapter, RedisReply } from "../../src/redis/types.js";

// ARGV[6] of step.lua (ARGV[1] is the prefix): the call header, "7a/1/0".
const CALL_AT = 5;

export interface HeldStep {
  adapter: RedisAdapter;
  /** The next step call naming `mark` (or whose arguments `mark` accepts), and its resends, are held. */
  arm(mark: string | ((args: string[]) => boolean)): void;
  /** How many step calls are held now. */
  held(): number;
  /** Sends the held calls to Redis; resolves once Redis answered them. */
  release(): Promise<void>;
  /** Releases the held calls (and waits for them) just before the next call of `script` goes. */
  releaseBefore(script: LuaScript): void;
}

export function holdStep(inner: RedisAdapter): HeldStep {
  const stepSha = sha1Hex(step.script.text);
  let mark: string | ((args: string[]) => boolean) | undefined;
  let header: string | undefined;
  let held: (() => Promise<void>)[] = [];
  let before: { sha: Promise<string>; text: string } | undefined;
  const release = async () => {
    const calls = held;
    held = [];
    header = undefined;
    await Promise.all(calls.map((send) => send()));
  };
  const through = async (
    script: { sha?: string; text?: string },
    args: string[],
    call: () => Promise<RedisReply>,
  ): Promise<RedisReply> => {
    if (script.sha === (await stepSha) || script.text === step.script.text) {
      const named = mark;
      if (named !== undefined && (typeof named === "string" ? args.some((a) => a.includes(named)) : named(args))) {
        mark = undefined;
        header = args[CALL_AT];
      }
      if (header !== undefined && args[CALL_AT] === header) {
        return new Promise<RedisReply>((resolve, reject) => {
          held.push(() =>
            call()
              .then(resolve, reject)
              .catch(() => {}),
          );
        });
      }
    }
    if (before && (script.sha === (await before.sha) || script.text === before.text)) {
      before = undefined;
      await release();
    }
    return call();
  };
  return {
    adapter: {
      ...inner,
      cluster: inner.cluster,
      separateRequests: inner.separateRequests,
      wait: inner.wait?.bind(inner),
      evalsha: (sha, keys, args) => through({ sha }, args, () => inner.evalsha(sha, keys, args)),
      eval: (text, keys, args) => through({ text }, args, () => inner.eval(text, keys, args)),
    },
    arm: (text) => void (mark = text),
    held: () => held.length,
    release,
    releaseBefore: (script) => void (before = { sha: sha1Hex(script.text), text: script.text }),
  };
}
