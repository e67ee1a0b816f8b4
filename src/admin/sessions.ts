// Dashboard sessions that logout ends on the server (lua/session.lua):
// the cookie is signed, so it cannot be forged, but a copy of it would open
// the dashboard until it expires; the mark that logout leaves refuses it.
import type { Runtime } from "../tick/runtime.js";
import { runtimeFor } from "../recurring/internal.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";

async function runtimeOf(tickq: object): Promise<Runtime> {
  const runtime = await runtimeFor(tickq);
  if (!runtime) throw new Error("not a Tickq made by createTickq");
  return runtime;
}

const endedKey = (runtime: Runtime, nonce: string) => `${runtime.prefix}dashboard:ended:${nonce}`;

/** Ends the session with this nonce for the `remainingMs` it had left. */
export async function endSession(tickq: object, nonce: string, remainingMs: number): Promise<void> {
  const runtime = await runtimeOf(tickq);
  await runCall(
    runtime,
    protocol.session,
    { ended: endedKey(runtime, nonce) },
    { op: "end", ms: Math.max(1, Math.ceil(remainingMs)) },
  );
}

/** Whether logout has ended the session with this nonce. */
export async function sessionEnded(tickq: object, nonce: string): Promise<boolean> {
  const runtime = await runtimeOf(tickq);
  return runCall(runtime, protocol.session, { ended: endedKey(runtime, nonce) }, { op: "check", ms: 0 });
}
