// tickq over the Upstash REST protocol with nothing but fetch (Cloudflare
// Workers, Vercel Edge or Node, Deno, Bun): about 1 KB where @upstash/redis
// adds 18 KB gzipped to a bundle, for the two commands tickq sends.
//
// Each call is one `POST {url}` of the command as a JSON array, with
// `Authorization: Bearer {token}` and `Upstash-Encoding: base64`: the server
// base64-encodes every string of the reply, so a job string comes back byte
// for byte (non-ASCII included) and is never parsed. It answers
// `{"result": …}`, or `{"error": "…"}` (status 400) with Redis' own message,
// which a rejected call carries: "NOSCRIPT …" lets runScript fall back to
// EVAL.
//
// A request that fails in the network (no answer, a connection cut before
// the reply was read) is sent again, a bounded number of times, as
// @upstash/redis does: tickq's scripts are replay-safe, so a resend of a
// command that already ran leaves the same state and gives a usable answer.
/**
 * The Redis adapter that speaks the Upstash REST protocol with `fetch` alone, for the smallest edge bundles.
 *
 * @module tickq/adapters/rest
 */

import { TickqError } from "../errors.js";
import { redactUrl } from "../redact.js";
import type { RedisAdapter, RedisReply } from "./types.js";
import { decodeReply } from "./rest-reply.js";

/** Options of `restAdapter`: the REST URL and token, and how network failures are resent. */
export interface RestAdapterOptions {
  /** The REST URL: UPSTASH_REDIS_REST_URL (Vercel KV: KV_REST_API_URL). */
  url: string;
  /** The REST token: UPSTASH_REDIS_REST_TOKEN (Vercel KV: KV_REST_API_TOKEN). */
  token: string;
  /** Default the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Resends after a network failure; default 2. */
  retries?: number;
  /** Wait before resend n (0, 1, …); default 50 · 2ⁿ ms. */
  backoffMs?: (attempt: number) => number;
}

/**
 * The adapter over the Upstash REST protocol, with `fetch` alone (about 1 KB gzipped): one request a call.
 * @example
 * const redis = restAdapter({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
 * const tq = createTickq({ redis, jobs });
 */
export function restAdapter(options: RestAdapterOptions): RedisAdapter {
  const { token, retries = 2, backoffMs = (n: number) => 50 * 2 ** n } = options;
  if (!options.url || !/^https?:\/\//.test(options.url)) {
    throw new TickqError(
      "BAD_OPTIONS",
      `restAdapter: url must be the http(s) REST URL of your Redis (UPSTASH_REDIS_REST_URL), not ${JSON.stringify(redactUrl(String(options.url)))}${tcpUrlHint(options.url)}`,
    );
  }
  if (!token) throw new TickqError("BAD_OPTIONS", "restAdapter: token is missing (UPSTASH_REDIS_REST_TOKEN)");
  if (!Number.isInteger(retries) || retries < 0)
    throw new TickqError("BAD_OPTIONS", `restAdapter: retries must be a whole number ≥ 0, not ${retries}`);
  const url = options.url.replace(/\/+$/, "");
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const headers = {
    authorization: `Bearer ${token}`,
    "upstash-encoding": "base64",
    "content-type": "application/json",
  };

  /** One answered request: the status and the body, read whole (a cut while reading is a network failure too). */
  const attempt = async (body: string) => {
    const response = await send(new Request(url, { method: "POST", headers, body }));
    return { status: response.status, text: await response.text() };
  };

  const command = async (words: (string | number)[]): Promise<RedisReply> => {
    const body = JSON.stringify(words);
    let answer: { status: number; text: string } | undefined;
    for (let n = 0; !answer; n++) {
      try {
        answer = await attempt(body);
      } catch (error) {
        if (n >= retries)
          throw new Error(
            `Redis REST request to ${redactUrl(url)} failed (${retries + 1} attempts): ${whyFailed(error)}; is the REST server up at UPSTASH_REDIS_REST_URL?`,
            { cause: error },
          );
        await new Promise((resolve) => setTimeout(resolve, backoffMs(n)));
      }
    }
    return replyOf(answer.status, answer.text);
  };

  return {
    evalsha: (sha, keys, args) => command(["EVALSHA", sha, keys.length, ...keys, ...args]),
    eval: (script, keys, args) => command(["EVAL", script, keys.length, ...keys, ...args]),
    separateRequests: true,
  };
}

/** A failed fetch's message with its cause ("fetch failed: connect ECONNREFUSED 127.0.0.1:7101"): undici puts the reason there. */
function whyFailed(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  const reason = cause instanceof Error ? cause.message : undefined;
  return reason && !message.includes(reason) ? `${message}: ${reason}` : message;
}

/** The decoded result, or an Error with the server's message. */
function replyOf(status: number, text: string): RedisReply {
  let parsed: { result?: unknown; error?: unknown } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // not JSON: a proxy's page, say; reported below with its status
  }
  if (parsed && typeof parsed === "object" && typeof parsed.error === "string") {
    throw new Error(status === 401 ? `${parsed.error}: check the token (UPSTASH_REDIS_REST_TOKEN)` : parsed.error);
  }
  if (status !== 200 || !parsed || typeof parsed !== "object" || !("result" in parsed)) {
    throw new Error(`Redis REST answered ${status}: ${text.slice(0, 200)}`);
  }
  return decodeReply(parsed.result);
}

// A redis:// URL in UPSTASH_REDIS_REST_URL is a TCP address given to the HTTP client: say which client takes it.
const tcpUrlHint = (url: string | undefined): string =>
  url && /^rediss?:\/\//.test(url)
    ? "; a redis:// URL is for a TCP client: pass `redis: ioredisAdapter(new Redis(url))` (tickq/adapters/ioredis)"
    : "";
