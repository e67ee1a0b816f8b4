// What tickq needs of a Redis client, and what it sends and gets back: the
// interface a custom adapter implements (ioredis.ts, upstash.ts, rest.ts,
// node-redis.ts are tickq's own).

/** A Redis reply as both adapters return it: no parsing, no Buffers. */
export type RedisReply = null | number | string | RedisReply[];

/** A Lua script tickq runs (its SHA-1 is computed when first run). */
export interface LuaScript {
  /** The entry script's name, its file name without `.lua`. */
  readonly name: string;
  /** The Lua source sent to Redis. */
  readonly text: string;
  /** The .lua file and line of a line of `text` ("src/lua/lib/tick/ack-jobs.lua:12"), for Redis' `user_script:N` errors. */
  sourceOf?(line: number): string | undefined;
}

/**
 * What tickq needs of a Redis client: two calls. Each call is one round trip.
 * An adapter must reject with an error whose message contains "NOSCRIPT"
 * when EVALSHA does not know the script.
 */
export interface RedisAdapter {
  /** EVALSHA: runs a script Redis already holds; rejects with "NOSCRIPT" in the message when it holds none. */
  evalsha(sha: string, keys: string[], args: string[]): Promise<RedisReply>;
  /** EVAL: sends the script's text and runs it (Redis caches it for later EVALSHA calls). */
  eval(script: string, keys: string[], args: string[]): Promise<RedisReply>;
  /**
   * Redis WAIT on the connection the last calls went through: how many
   * replicas hold them after at most `timeoutMs`. Only `durability` uses it.
   * `keys` are those of the call whose writes to confirm: a cluster adapter
   * sends WAIT to the master serving their slot, the connection that carried
   * the call (WAIT has no key, so a cluster client would pick any node).
   */
  wait?(replicas: number, timeoutMs: number, keys?: string[]): Promise<number>;
  /**
   * True when the client talks to a Redis Cluster: tickq's scripts touch
   * keys they build from the prefix, so the prefix must hold a hash tag
   * (`{tickq}:`) that puts every key in one slot; createTickq refuses one
   * without.
   */
  readonly cluster?: boolean;
  /**
   * True when each call is its own request (HTTP: upstashAdapter and
   * restAdapter set it), so calls in flight at once may reach Redis in
   * either order. A tick then keeps two steps in flight, each numbered in
   * its own lane, so the next fetch's round trip overlaps the last one's.
   * Leave it unset for a client that sends calls in order on one connection.
   */
  readonly separateRequests?: boolean;
}
