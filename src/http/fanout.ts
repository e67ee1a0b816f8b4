// Fan-out: when a tick ends with work left, start more ticks by calling the
// app's own /tick URL, so a backlog drains across parallel function
// instances (each request is a fresh invocation with its own budget) and,
// once drained, falls back to the cron. The slots come from Redis first
// (tq.reserveTicks: live ticks counted from the registry), so however many
// instances fan out at once, never more than maxParallel ticks are live.
// Each request carries its reserved tick id and asks for an answer at once
// (`?wait=0`, 202): the caller waits for no tick, only for the hand-over.
// It never carries a secret: only a credential for its one tick
// (tick-credential.ts), so a wrong URL could leak nothing that opens the API.
import type { JobRegistry, Tickq } from "../index.js";
import { TickqError } from "../errors.js";
import { printable } from "../printable.js";
import { signTick, TICK_AUTH_HEADER } from "./tick-credential.js";

/**
 * How a fanned-out request reaches the app: plain fetch, or a Worker's service binding to itself.
 * @inline
 */
export type SelfFetch = (request: Request) => Promise<Response>;

export interface FanOut {
  /** At most this many ticks live at once. */
  maxParallel: number;
  /** The app's own URL, basePath included: configured, never taken from a request. */
  url: string;
  /** Signs a credential for one reserved tick id; none when the app runs without auth. */
  sign?: (tickId: string) => Promise<string>;
  fetch?: SelfFetch;
  log?: (message: string) => void;
}

/** The header that carries a reserved tick id. */
export const TICK_ID_HEADER = "x-tickq-tick-id";

/** Reserves free slots and sends one /tick request per slot; returns how many it sent. */
export async function fanOut(tq: Tickq<JobRegistry>, f: FanOut): Promise<number> {
  const ids = await tq.reserveTicks(f.maxParallel, f.maxParallel);
  const send = f.fetch ?? ((request: Request) => fetch(request));
  const sent = await Promise.all(
    ids.map(async (id) => {
      const headers: Record<string, string> = { [TICK_ID_HEADER]: id };
      try {
        if (f.sign) headers[TICK_AUTH_HEADER] = await f.sign(id);
        const res = await send(new Request(`${f.url}/tick?wait=0`, { method: "POST", headers }));
        await res.body?.cancel();
        if (res.ok) return 1;
        f.log?.(`tickq: fan-out to ${f.url}/tick answered ${res.status}; its slot frees itself in a few seconds`);
      } catch (error) {
        f.log?.(`tickq: fan-out to ${f.url}/tick failed: ${(error as Error).message}`);
      }
      return 0;
    }),
  );
  return sent.reduce((a: number, b) => a + b, 0);
}

/** Where fan-out requests go: only ever configuration, never a request's Host or URL. */
export interface FanOutTarget {
  /** TICKQ_PUBLIC_URL: the app's public URL, basePath included. */
  publicUrl?: string;
  /** A Worker's service binding to itself. */
  selfFetch?: SelfFetch;
  /** Node: the address the server listens on, known once it does. */
  listeningUrl?: () => string;
  /** Mount point, added to a service binding's or a listening address' URL. */
  basePath?: string;
}

export interface FanOutSettings extends FanOutTarget {
  tickq: Tickq<JobRegistry>;
  /** Off when undefined. */
  maxParallel?: number;
  /** Keys the tick credentials; none when the app runs without auth. */
  secret?: string;
  log?: (message: string) => void;
}

/**
 * The fan-out of an app: undefined when maxParallel is off. Throws
 * TickqError BAD_OPTIONS at start when fan-out is on with nowhere
 * configured to send it, naming the setting.
 */
export function fanOutStarter(s: FanOutSettings): (() => Promise<void>) | undefined {
  const { maxParallel, secret } = s;
  if (maxParallel === undefined) return undefined;
  const url = fanOutUrl(s);
  const sign = secret ? (tickId: string) => signTick(secret, tickId) : undefined;
  const log = s.log ?? ((line: string) => console.warn(printable(line)));
  return async () => {
    await fanOut(s.tickq, { maxParallel, url: url(), sign, fetch: s.selfFetch, log });
  };
}

function fanOutUrl(s: FanOutTarget): () => string {
  const base = (s.basePath ?? "").replace(/\/+$/, "");
  if (s.publicUrl) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(s.publicUrl);
    } catch {
      // refused below
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.username || parsed.password) {
      throw new TickqError(
        "BAD_OPTIONS",
        "TICKQ_PUBLIC_URL (publicUrl) must be the app's own http(s) URL, basePath included, with no user or password",
      );
    }
    const url = s.publicUrl.replace(/\/+$/, "");
    return () => url;
  }
  // A service binding ignores the host (a loopback one passes TICKQ_INSECURE's guard); the path still has to reach /tick.
  if (s.selfFetch) return () => `http://localhost${base}`;
  const listening = s.listeningUrl;
  if (listening) return () => `${listening()}${base}`;
  throw new TickqError(
    "BAD_OPTIONS",
    "fan-out (maxParallel, TICKQ_MAX_PARALLEL) needs the app's own URL from configuration, never from a request: " +
      "set TICKQ_PUBLIC_URL (publicUrl) to it, basePath included, or on a Worker bind the Worker to itself as TICKQ_SELF",
  );
}
