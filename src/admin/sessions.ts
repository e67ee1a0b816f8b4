// Dashboard sessions that logout ends on the server (lua/session.lua):
// the cookie is signed, so it cannot be forged, but a copy of it would open
// the dashboard until it expires; the mark that logout leaves refuses it.
import type { Runtime } from "../tick/runtime.js";
import { runtimes } from "../recurring/internal.js";
import { scripts } from "../lua/index.js";

function runtimeOf(tickq: object): Runtime {
  const runtime = runtimes.get(tickq);
  if (!runtime) throw new Error("not a Tickq made by createTickq");
  return runtime;
}

const endedKey = (runtime: Runtime, nonce: string) => `${runtime.prefix}dashboard:ended:${nonce}`;

/** Ends the session with this nonce for the `remainingMs` it had left. */
export async function endSession(tickq: object, nonce: string, remainingMs: number): Promise<void> {
  const runtime = runtimeOf(tickq);
  await runtime.run(scripts.session, [endedKey(runtime, nonce)], ["end", Math.max(1, Math.ceil(remainingMs))], { count: 0 });
}

/** Whether logout has ended the session with this nonce. */
export async function sessionEnded(tickq: object, nonce: string): Promise<boolean> {
  const runtime = runtimeOf(tickq);
  return (await runtime.run(scripts.session, [endedKey(runtime, nonce)], ["check", 0], { count: 0 })) === 1;
}
