// A job's `backtrace` option, as Sidekiq reads it (job_retry.rb): `true`
// keeps every line of the error's backtrace, a number the first that many;
// the lines are stored in `error_backtrace` as Sidekiq stores them, JSON
// deflated with zlib and base64-encoded, so Sidekiq Web and
// `SortedEntry#error_backtrace` show them. A JS stack's frames ("at f
// (file:1:2)") are the lines, "at " dropped.
//
// Web Streams' CompressionStream("deflate") is zlib's format (RFC 1950),
// what Ruby's Zlib::Deflate.deflate writes; it exists in Node ≥ 18, Workers,
// Vercel Edge and browsers. Where it is missing, or anything throws, the
// field is left out: failing a job must never fail.

/** The lines to keep, or undefined when the job asks for none. */
export function backtraceLines(setting: unknown, error: unknown): string[] | undefined {
  let limit: number;
  if (setting === true) limit = Infinity;
  else if (typeof setting === "number" && Number.isFinite(setting)) limit = Math.max(0, Math.trunc(setting));
  // Ruby's "5".to_i; any other value is not a line count
  else if (typeof setting === "string" && /^\s*\d+/.test(setting)) limit = parseInt(setting, 10);
  else return undefined;
  let stack = "";
  try {
    stack = error instanceof Error ? String(error.stack ?? "") : "";
  } catch {
    stack = "";
  }
  const frames = stack
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .map((line) => line.trim().slice(3));
  return frames.slice(0, limit);
}

/** `error_backtrace` for the job's `backtrace` option, or undefined. */
export async function compressedBacktrace(setting: unknown, error: unknown): Promise<string | undefined> {
  const lines = backtraceLines(setting, error);
  if (lines === undefined || typeof CompressionStream !== "function") return undefined;
  try {
    const input = new Blob([JSON.stringify(lines)]).stream().pipeThrough(new CompressionStream("deflate"));
    const bytes = new Uint8Array(await new Response(input).arrayBuffer());
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  } catch {
    return undefined;
  }
}
