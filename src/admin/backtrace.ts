// Reading a stored `error_backtrace` back into lines, for find and the CLI:
// Sidekiq 7's form (JSON deflated with zlib, base64'd, as tickq writes it
// too) or Sidekiq 6's plain array. Undefined when absent or unreadable.

export async function readBacktrace(value: unknown): Promise<string[] | undefined> {
  if (Array.isArray(value)) return value.map(line);
  if (typeof value !== "string" || value === "" || typeof DecompressionStream !== "function") return undefined;
  try {
    const bytes = Uint8Array.from(atob(value.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
    const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"))).text();
    const lines: unknown = JSON.parse(text);
    return Array.isArray(lines) ? lines.map(line) : undefined;
  } catch {
    return undefined;
  }
}

/** A line as text: any client writes backtraces, and String() of {"toString":1} throws. */
const line = (value: unknown) => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));
