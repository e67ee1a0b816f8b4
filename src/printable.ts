// Text from jobs (an error message quoting a user's input, a queue name a
// Ruby client wrote, a workflow run id) can hold control characters: ESC
// and OSC sequences retitle a terminal, erase and rewrite lines, or plant
// links; a newline forges a log line. Everything tickq prints to a
// terminal or a log line goes through here first, so those characters show
// as visible escapes (`\x1b`, `\n`) and never act. Bidirectional overrides
// and the Unicode line separators are escaped too: they reorder or break
// what a reader sees without being C0 or C1.

/** C0, DEL and C1: the characters a terminal may act on. Names holding one are refused (isPrintableName). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** What printing escapes: the controls, the line and paragraph separators, and the bidirectional embeddings, overrides and isolates. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** UNSAFE but tab and line breaks, which a web page reads as spaces: what the dashboard shows escaped (dashboard/visible.ts). */
export const UNSAFE_ON_A_PAGE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw of UNSAFE: everything above 0x7e (it writes C0 as \u escapes itself). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

const hex = (c: string, digits: number) => c.charCodeAt(0).toString(16).padStart(digits, "0");
const visible = (c: string) => NAMED[c] ?? (c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`);
/** `c` as a `\uXXXX` escape: visible, and read back as `c` inside JSON. */
export const unicodeEscape = (c: string) => `\\u${hex(c, 4)}`;

/** True when `text` holds a C0 or C1 control character or DEL. */
export function hasControl(text: string): boolean {
  return CONTROL.test(text);
}

/** `text` on one line, every control character (newlines too) written as a visible escape: `\x1b`, `\n`, `\u202e`. */
export function printable(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** As printable, but line breaks stay: for text tickq lays out in lines itself, once each value in it is printable. */
export function printableLines(text: string): string {
  return text.replace(UNSAFE_BUT_NEWLINE, visible);
}

/**
 * JSON.stringify whose output a terminal cannot act on: C1, DEL and the characters printable escapes are written
 * as `\u` escapes too (JSON.stringify escapes only C0), so it parses back to the same value.
 */
export function terminalJson(value: unknown, space?: number): string {
  const json = JSON.stringify(value, null, space);
  return json === undefined ? "undefined" : json.replace(UNSAFE_IN_JSON, unicodeEscape);
}

/** An error as a log shows it, name and message on one printable line, then its stack's frames (each printable). */
export function printableErrorText(error: unknown): string {
  try {
    return errorText(error);
  } catch {
    return "(an error that cannot be printed)";
  }
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return printable(String(error));
  const head = `${error.name}: ${error.message}`;
  const stack = typeof error.stack === "string" ? error.stack : "";
  const start = stack.startsWith(head) ? head.length : stack.indexOf("\n");
  const frames = start < 0 ? "" : stack.slice(start);
  return `${printable(head)}${frames.split("\n").map(printable).join("\n")}`;
}
