// The commits of one execution, in order, at most one in flight. An
// execution goes on with a step's result at once and runs its next steps
// while the commit travels; what completes meanwhile rides on the run's next
// commit, so steps that end within a round trip of each other share a call,
// and the last ones share the call that ends the run. Steps that end at
// once (no I/O awaited: execute.ts) add their results without sending them,
// for at most MAX_HOLD_MS. Every commit is fenced (commit-runs.lua): once
// one is refused (the run is no longer this execution's), every later one
// would be too, so none is sent, and `stale` aborts the steps running.
import { monotonicMs } from "../tick/clock.js";
import type { Commit } from "./execute.js";

/** Longest a completed step waits for its commit to leave while the run's next steps keep ending at once. */
const MAX_HOLD_MS = 50;

type Ending = Pick<Commit, "disposition" | "extra" | "steps" | "parks">;

export interface CommitPipe {
  /** Completed steps: they go with the next commit. */
  add(steps: Commit["steps"]): void;
  /** Sends the steps added: now when no commit is in flight, else as soon as it is answered. */
  flush(): void;
  /** Waits until no commit is in flight; false once one was refused. */
  settled(): Promise<boolean>;
  /** The execution's last commit, with every step added (sent as soon as none is in flight): true when applied. */
  end(ending: Ending): Promise<boolean>;
  /** Aborts when a commit is refused. */
  stale: AbortSignal;
}

export function commitPipe(send: (commit: Commit) => Promise<boolean>, run: { id: string; fence: string }): CommitPipe {
  let waiting: Commit["steps"] = [];
  let inFlight: Promise<boolean> | undefined;
  let flushWanted = false;
  let ending: { ending: Ending; resolve(applied: boolean): void } | undefined;
  const refused = new AbortController();
  let since = 0;

  // Sends the next commit when none is in flight: the end once asked for (it takes every step waiting), else the steps.
  const pump = () => {
    if (inFlight) return;
    if (refused.signal.aborted) {
      ending?.resolve(false);
      ending = undefined;
      return;
    }
    const last = ending;
    if (!last && !(flushWanted && waiting.length > 0)) return;
    const steps = last ? [...waiting, ...last.ending.steps] : waiting;
    const commit: Commit = last
      ? { ...run, ...last.ending, steps }
      : { ...run, disposition: "c", extra: "", steps, parks: [] };
    waiting = [];
    flushWanted = false;
    ending = undefined;
    inFlight = send(commit)
      .catch(() => false)
      .then((applied) => {
        inFlight = undefined;
        if (!applied) refused.abort(new Error("workflow run no longer held by this execution: its commit was refused"));
        last?.resolve(applied);
        pump();
        return applied;
      });
  };

  const flush = () => {
    flushWanted = true;
    pump();
  };

  return {
    add(steps) {
      if (waiting.length === 0) since = monotonicMs();
      waiting.push(...steps);
      // Steps that each end at once (CPU work) still commit every so often.
      if (monotonicMs() - since >= MAX_HOLD_MS) flush();
    },
    flush,
    async settled() {
      while (inFlight) await inFlight;
      return !refused.signal.aborted;
    },
    end(next) {
      return new Promise<boolean>((resolve) => {
        ending = { ending: next, resolve };
        pump();
      });
    },
    stale: refused.signal,
  };
}
