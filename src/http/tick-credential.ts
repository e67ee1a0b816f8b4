// The credential a fan-out request carries instead of a secret: an HMAC
// (SHA-256, keyed by the app's secret) over one reserved tick id and a
// near expiry. Whoever sees it in flight can start that one tick for a few
// seconds, and nothing else: no other route, no other tick id, no reading.
// Web Crypto only, so the Worker, Vercel and Node verify it the same way.

/** The header that carries the credential: `<expiry ms>.<hex HMAC>`. */
export const TICK_AUTH_HEADER = "x-tickq-tick-auth";

/** Long enough for a request on its way and a cold start; the slot it names is reserved for 15 s. */
export const TICK_CREDENTIAL_TTL_MS = 30_000;

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]);
    keys.set(secret, key);
  }
  return key;
}

// The purpose is part of the message, so this HMAC can never be mistaken for one the dashboard signs with the same secret.
const message = (tickId: string, expiresAt: number) => encoder.encode(`tickq fan-out tick\n${tickId}\n${expiresAt}`);

const toHex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** A credential that starts the tick `tickId` until `now + TICK_CREDENTIAL_TTL_MS`. */
export async function signTick(secret: string, tickId: string, now = Date.now()): Promise<string> {
  const expiresAt = now + TICK_CREDENTIAL_TTL_MS;
  return `${expiresAt}.${toHex(await crypto.subtle.sign("HMAC", await keyOf(secret), message(tickId, expiresAt)))}`;
}

/** Whether `credential` was signed by one of `secrets` for `tickId` and has not expired (nor expires implausibly late). */
export async function verifyTick(
  secrets: readonly string[],
  tickId: string,
  credential: string,
  now = Date.now(),
): Promise<boolean> {
  const match = /^(\d{1,15})\.([0-9a-f]{64})$/.exec(credential);
  if (!match) return false;
  const expiresAt = Number(match[1]);
  if (expiresAt < now || expiresAt > now + TICK_CREDENTIAL_TTL_MS + 5_000) return false;
  const signature = fromHex(match[2]!);
  for (const secret of secrets) {
    // subtle.verify compares in constant time.
    if (await crypto.subtle.verify("HMAC", await keyOf(secret), signature, message(tickId, expiresAt))) return true;
  }
  return false;
}
