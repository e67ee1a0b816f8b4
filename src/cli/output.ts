// What the CLI prints: aligned tables and short relative times for people,
// JSON for scripts (--json). Every line goes out through print (stdout) or
// printError (stderr), and every value from Redis (a jid, a queue name, an
// error message a job's input put there) is made printable first
// (src/printable.ts): a table escapes its cells, clip its text, and a
// command escapes what it interpolates itself, so no byte of a job's data
// reaches the terminal as a control character.
import { printable, printableLines, terminalJson } from "../printable.js";

export { printable, printableLines, terminalJson };

/** Writes lines to stdout; a control character in them other than a line break shows as an escape. */
export function print(text = ""): void {
  console.log(printableLines(text));
}

/** Writes lines to stderr, as print does to stdout. */
export function printError(text: string): void {
  console.error(printableLines(text));
}

/** Columns padded to their widest cell, each cell printable (one line); the last column is not padded. */
export function table(headers: string[], rows: string[][]): string {
  const all = [headers, ...rows].map((r) => r.map(printable));
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

/** One printable line, at most `max` characters. */
export function clip(text: string, max: number): string {
  const line = printable(text.replace(/\s+/g, " ").trim());
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** --json: valid JSON that a terminal cannot act on (C1 and DEL as \u escapes too). */
export function printJson(value: unknown): void {
  process.stdout.write(`${terminalJson(value, 2)}\n`);
}
