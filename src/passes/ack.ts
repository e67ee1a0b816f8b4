// Outcomes of executed jobs, encoded for lib/ack.lua (see its header for
// what each kind does in Redis).
import type { FetchedJob } from "./fetch.js";

export type Outcome =
  | { kind: "succeeded"; job: FetchedJob }
  | { kind: "retry"; job: FetchedJob; updated: string; delaySec: number }
  | { kind: "dead"; job: FetchedJob; updated: string; handlerFailed: boolean }
  | { kind: "unstarted"; job: FetchedJob }
  | { kind: "interrupted"; job: FetchedJob };

const CODES = { succeeded: "s", retry: "r", dead: "d", unstarted: "q", interrupted: "i" } as const;

const putBack = (o: Outcome) => o.kind === "unstarted" || o.kind === "interrupted";

export function ackArgs(outcomes: Outcome[]): (string | number)[] {
  // Jobs put back are pushed one by one onto the head of their queue: the
  // last pushed is fetched first, so they go in reverse to keep their order.
  const ordered = [...outcomes.filter((o) => !putBack(o)), ...outcomes.filter(putBack).reverse()];
  const args: (string | number)[] = [ordered.length];
  for (const o of ordered) {
    const updated = o.kind === "retry" || o.kind === "dead" ? o.updated : "";
    const delay = o.kind === "retry" ? o.delaySec : 0;
    args.push(CODES[o.kind], o.job.queue, o.job.raw, updated, delay);
  }
  return args;
}
