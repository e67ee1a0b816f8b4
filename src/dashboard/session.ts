// Browser sessions: the cookie holds a random nonce, an expiry and an HMAC
// of both keyed by the secret the user typed — never the secret itself. Any
// configured secret that verifies the HMAC accepts the session, so rotating
// a secret ends the sessions it opened; logout ends one in Redis
// (`tq.guards`, src/admin/guards.ts), so a copy of its cookie stops working too. The CSRF
// token is another HMAC of the same nonce: a page gets it in its forms, a
// cross-site page cannot read it. WebCrypto only: Workers and Node 20 alike.
import { timingSafeEqual } from "hono/utils/buffer";
import type { Session } from "../http/dashboard-slot.js";

/** How long a login lasts. */
export const SESSION_MS = 12 * 3600_000;

const encoder = new TextEncoder();

const base64url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

async function hmac(key: string, message: string): Promise<string> {
  const k = await crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return base64url(await crypto.subtle.sign("HMAC", k, encoder.encode(message)));
}

export const randomToken = () => base64url(crypto.getRandomValues(new Uint8Array(18)));

/** A new session's cookie value, signed with `key`. */
export async function openSession(key: string, nowMs: number): Promise<string> {
  const nonce = randomToken();
  const expires = String(nowMs + SESSION_MS);
  return `${nonce}.${expires}.${await hmac(key, `session ${nonce} ${expires}`)}`;
}

/** The session a cookie value holds, if one of `keys` signed it and it has not expired. */
export async function readSession(
  value: string | undefined,
  keys: readonly string[],
  nowMs: number,
): Promise<Session | null> {
  const [nonce, expires, mac, extra] = (value ?? "").split(".");
  if (!nonce || !expires || !mac || extra !== undefined || !(Number(expires) > nowMs)) return null;
  for (const key of keys) {
    if (await timingSafeEqual(mac, await hmac(key, `session ${nonce} ${expires}`)))
      return { nonce, key, expiresMs: Number(expires) };
  }
  return null;
}

export const csrfToken = (session: Session) => hmac(session.key, `csrf ${session.nonce}`);

/** Constant-time check of a typed secret against each accepted one; the one it matches, or null. */
export async function matchSecret(given: string, secrets: readonly string[]): Promise<string | null> {
  let matched: string | null = null;
  for (const secret of secrets) if ((await timingSafeEqual(given, secret)) && matched === null) matched = secret;
  return matched;
}
