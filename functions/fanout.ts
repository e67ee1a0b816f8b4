// Fan-out: when a tick ends with work left, start more ticks by calling the
// app's own /tick URL, so a backlog drains across parallel function
// instances (each request is a fresh invocation with its own budget) and,
// once drained, falls back to the cron. The slots come from Redis first
// (tq.reserveTicks: live ticks counted from the registry), so however many
// instances fan out at once, never more than maxParallel ticks are live.
// Each request carries its reserved tick id and asks for an answer at once
// (`?wait=0`, 202): the caller waits for no tick, only for the hand-over.
import type { JobRegistry, Tickq } from "../src/index.js";

/** How a fanned-out request reaches the app: plain fetch, or a Worker's service binding to itself. */
export type SelfFetch = (request: Request) => Promise<Response>;

export interface FanOut {
  /** At most this many ticks live at once. */
  maxParallel: number;
  /** The app's own URL, basePath included (TICKQ_PUBLIC_URL, else the request's origin). */
  url: string;
  /** Sent as the bearer token; none when the app runs without auth. */
  secret?: string;
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
      if (f.secret) headers.authorization = `Bearer ${f.secret}`;
      try {
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
