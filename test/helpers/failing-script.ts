// An adapter whose first call of one script fails with a script error: before Redis runs it, or
// after (Redis ran it, its reply lost), as a refused call or a transport that gave up would.
import { scripts } from "../../src/lua/index.js";
import { scriptSha } from "../../src/redis/script-sha.js";
import type { RedisAdapter } from "../../src/redis/types.js";

export async function failingFirstCall(
  base: RedisAdapter,
  script: keyof typeof scripts,
  when: "before" | "after",
): Promise<{ adapter: RedisAdapter; failed: () => number }> {
  const { text } = scripts[script];
  const sha = await scriptSha(scripts[script]);
  let failed = 0;
  const fail = async <T>(call: () => Promise<T>): Promise<T> => {
    failed++;
    if (when === "after") await call();
    throw new Error(
      `ERR Error running script (injected): ${script} ${when === "after" ? "reply lost" : "refused once"}`,
    );
  };
  return {
    failed: () => failed,
    adapter: {
      ...base,
      evalsha: (called, keys, args) =>
        called === sha && failed === 0
          ? fail(() => base.evalsha(called, keys, args))
          : base.evalsha(called, keys, args),
      eval: (called, keys, args) =>
        called === text && failed === 0 ? fail(() => base.eval(called, keys, args)) : base.eval(called, keys, args),
    },
  };
}
