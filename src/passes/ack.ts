// Outcomes of executed jobs, encoded for lib/ack.lua (see its header for
// what each kind does in Redis).
import type { FetchedJob } from "./fetch.js";

export type Outcome =
  | { kind: "succeeded"; job: FetchedJob }
  | { kind: "retry"; job: FetchedJob; updated: string; delaySec: number }
  | { kind: "dead"; job: FetchedJob; updated: string; handlerFailed: boolean }
  /** Failed out of retries with `dead: false`: dropped, counted as failed. */
  | { kind: "discarded"; job: FetchedJob }
  | { kind: "unstarted"; job: FetchedJob }
  | { kind: "interrupted"; job: FetchedJob };

const CODES = { retry: "r", dead: "d", discarded: "x", unstarted: "q", interrupted: "i" } as const;

type Settled = Exclude<Outcome, { kind: "succeeded" }>;
const putBack = (o: Outcome) => o.kind === "unstarted" || o.kind === "interrupted";
const settled = (o: Outcome): o is Settled => o.kind !== "succeeded";

/** lib/ack.lua's arguments: successes grouped by queue, then the other outcomes. */
export function ackArgs(outcomes: Outcome[]): (string | number)[] {
  const succeeded = new Map<string, string[]>();
  for (const o of outcomes) {
    if (o.kind !== "succeeded") continue;
    const raws = succeeded.get(o.job.queue);
    if (raws) raws.push(o.job.raw);
    else succeeded.set(o.job.queue, [o.job.raw]);
  }
  const args: (string | number)[] = [succeeded.size];
  for (const [queue, raws] of succeeded) args.push(queue, raws.length, ...raws);

  // Jobs put back are pushed one by one onto the head of their queue: the
  // last pushed is fetched first, so they go in reverse to keep their order.
  const rest = outcomes.filter(settled);
  const ordered = [...rest.filter((o) => !putBack(o)), ...rest.filter(putBack).reverse()];
  args.push(ordered.length);
  for (const o of ordered) {
    const updated = o.kind === "retry" || o.kind === "dead" ? o.updated : "";
    const delay = o.kind === "retry" ? o.delaySec : 0;
    args.push(CODES[o.kind], o.job.queue, o.job.raw, updated, delay);
  }
  return args;
}
