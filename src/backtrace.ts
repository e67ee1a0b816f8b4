// The backtrace a failed job keeps, as Sidekiq 6 stores `error_backtrace`:
// an array of frame lines (Sidekiq 7's Web reads that form too). The
// message lines V8 puts first are left out (error_message has them), and
// both the number of lines and their length are capped so a deep stack
// cannot bloat the retry and dead sets.

/** Longest kept frame line, in characters. */
const MAX_LINE = 500;

/** Up to `maxLines` frames of what was thrown; empty when it has no stack. Never throws. */
export function backtraceOf(error: unknown, maxLines: number): string[] {
  if (maxLines <= 0) return [];
  let stack: unknown;
  try {
    stack = error instanceof Error ? error.stack : undefined;
  } catch {
    return [];
  }
  if (typeof stack !== "string") return [];
  const lines = stack.split("\n");
  // V8: "Name: message" (possibly several lines), then "    at …" frames.
  const firstFrame = lines.findIndex((line) => /^\s+at /.test(line));
  const frames = firstFrame >= 0 ? lines.slice(firstFrame) : lines.slice(1);
  return frames
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .slice(0, maxLines)
    .map((line) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line).toWellFormed());
}
