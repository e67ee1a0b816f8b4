// A tick's numbered calls as the pipeline and the capabilities see them
// (calls.ts makes them): the next number, and a call resent unchanged on
// transient errors.
import type { TypedCall } from "../protocol/define.js";

export interface TickCalls {
  /** The number the next numbered call carries. */
  next(): number;
  /** Runs a call, resending it unchanged on transient errors for up to `patienceMs` after its first failure. */
  send<Args extends object, Reply>(call: TypedCall<TickKeys, Args, Reply>, args: Args): Promise<Reply>;
}

/** The KEYS of every tick call: the registry, the lease, and as a Sidekiq process its hashes. */
export interface TickKeys {
  ticks: string;
  lease: string;
  process?: { heartbeat: string; work: string; workers: string };
}
