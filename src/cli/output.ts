// What the CLI prints: aligned tables and short relative times for people,
// JSON for scripts (--json).

/** Columns padded to their widest cell; the last column is not padded. */
export function table(headers: string[], rows: string[][]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, c) => Math.max(...all.map((r) => (r[c] ?? "").length)));
  return all
    .map((r) =>
      r
        .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** "in 5 min", "3 h ago", "now". */
export function relative(ms: number, nowMs: number): string {
  const delta = ms - nowMs;
  const abs = Math.abs(delta);
  const amount =
    abs < 1_000
      ? ""
      : abs < 120_000
        ? `${Math.round(abs / 1000)} s`
        : abs < 7_200_000
          ? `${Math.round(abs / 60_000)} min`
          : abs < 172_800_000
            ? `${Math.round(abs / 3_600_000)} h`
            : `${Math.round(abs / 86_400_000)} d`;
  if (amount === "") return "now";
  return delta > 0 ? `in ${amount}` : `${amount} ago`;
}

export const when = (ms: number | null | undefined, nowMs: number) =>
  ms === null || ms === undefined ? "never" : `${new Date(ms).toISOString()} (${relative(ms, nowMs)})`;

/** One line, at most `max` characters. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
