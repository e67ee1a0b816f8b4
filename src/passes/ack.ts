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

export function ackArgs(outcomes: Outcome[]): (string | number)[] {
  const args: (string | number)[] = [outcomes.length];
  for (const o of outcomes) {
    const updated = o.kind === "retry" || o.kind === "dead" ? o.updated : "";
    const delay = o.kind === "retry" ? o.delaySec : 0;
    args.push(CODES[o.kind], o.job.queue, o.job.raw, updated, delay);
  }
  return args;
}
