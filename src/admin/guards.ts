// What the HTTP app and the dashboard keep in a tickq's Redis, under its
// prefix: a client's failed logins and bearer tokens (lua/throttle.lua) and
// the dashboard sessions logout ended (lua/session.lua). A Tickq carries them
// as `guards`, so neither surface reaches for the runtime behind it.
import { runCall } from "../protocol/run.js";
import * as protocol from "../protocol/index.js";
import type { Runtime } from "../tick/runtime.js";

/** Failures a client may have in one window before it is refused. */
export const THROTTLE_LIMIT = 10;
export const THROTTLE_WINDOW_MS = 60_000;

/** The login throttle and ended dashboard sessions of one tickq (`tq.guards`), for the HTTP app and the dashboard. */
export interface AuthGuards {
  /** Milliseconds until `client` may try to authenticate again; 0 when it may now. */
  blockedFor(client: string): Promise<number>;
  /** Counts one failed login or bearer token of `client` ({@link THROTTLE_LIMIT} in a minute refuse it until the minute ends). */
  failed(client: string): Promise<void>;
  /** Ends the dashboard session with this nonce for the `remainingMs` its cookie had left. */
  endSession(nonce: string, remainingMs: number): Promise<void>;
  /** Whether logout has ended the dashboard session with this nonce. */
  sessionEnded(nonce: string): Promise<boolean>;
}

/** The guards kept under `runtime`'s prefix. */
export function authGuards(runtime: Runtime): AuthGuards {
  // An address is short; anything longer is cut, so a key stays small.
  const failures = (client: string) => `${runtime.prefix}auth-failures:${client.slice(0, 64)}`;
  const ended = (nonce: string) => `${runtime.prefix}dashboard:ended:${nonce}`;
  const throttle = (op: "check" | "fail", client: string) =>
    runCall(
      runtime,
      protocol.throttle,
      { failures: failures(client) },
      {
        op,
        windowMs: THROTTLE_WINDOW_MS,
        limit: THROTTLE_LIMIT,
        attempt: op === "fail" ? crypto.randomUUID() : "",
      },
    );
  return {
    blockedFor: (client) => throttle("check", client),
    failed: async (client) => void (await throttle("fail", client)),
    async endSession(nonce, remainingMs) {
      const ms = Math.max(1, Math.ceil(remainingMs));
      await runCall(runtime, protocol.session, { ended: ended(nonce) }, { op: "end", ms });
    },
    sessionEnded: (nonce) => runCall(runtime, protocol.session, { ended: ended(nonce) }, { op: "check", ms: 0 }),
  };
}
