// Exit codes of `tickq`, so scripts can tell what happened without parsing:
//   0  done
//   1  failed: Redis unreachable or refusing, or anything unexpected
//   2  bad usage: unknown command or option, a bad state, cursor, jid or argument, no connection settings
//   3  not found: no job with that jid
//   4  conflict: the job is in process, or in a state the command does not take
//   5  `tickq health`: Redis answers, but there are warnings
//   6  `tickq workflows check`: a live run would not replay on the code checked
import { TickqError } from "../index.js";

export const EXIT = { OK: 0, FAILED: 1, USAGE: 2, NOT_FOUND: 3, CONFLICT: 4, WARNINGS: 5, INCOMPATIBLE: 6 } as const;

/** A mistake in how the CLI was called: exit 2, with the message. */
export class UsageError extends Error {
  override name = "UsageError";
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.USAGE;
  if (!(error instanceof TickqError)) return EXIT.FAILED;
  switch (error.code) {
    case "NOT_FOUND":
      return EXIT.NOT_FOUND;
    case "CONFLICT":
      return EXIT.CONFLICT;
    case "BAD_ARGS":
    case "BAD_STATE":
    case "BAD_CURSOR":
    case "BAD_OPTIONS":
    case "UNKNOWN_JOB":
      return EXIT.USAGE;
    default:
      return EXIT.FAILED;
  }
}
