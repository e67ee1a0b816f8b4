// Changing fields of a stored job without re-encoding it. JSON.parse then
// JSON.stringify would rewrite bytes tickq does not own: Ruby's 2**53+1
// loses its last digit, 1.0 becomes 1. So the top level of the object text
// is walked (strings and nested values skipped whole) and only the values
// of the named fields are replaced, or appended before the closing brace.

interface FieldSpan {
  /** Index of the value's first character. */
  start: number;
  /** Index just past the value. */
  end: number;
}

/** Index just past the JSON string opening at `i`, or -1 if unterminated. */
function pastString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) j++;
    else if (c === 34) return j + 1;
  }
  return -1;
}

/** Index just past the value starting at `i` (after whitespace), or -1. */
function pastValue(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j]!;
    if (c === '"') {
      j = pastString(text, j) - 1;
      if (j < 0) return -1;
      if (depth === 0) return j + 1;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (depth === 0) return j;
      if (--depth === 0) return j + 1;
    } else if (c === "," && depth === 0) return j;
  }
  return depth === 0 ? text.length : -1;
}

const isSpace = (c: string | undefined) => c === " " || c === "\n" || c === "\r" || c === "\t";

/** The top-level fields of a JSON object text, or null if it is not one. */
export function topLevelFields(text: string): Map<string, FieldSpan> | null {
  const fields = new Map<string, FieldSpan>();
  let i = 0;
  const skip = () => {
    while (isSpace(text[i])) i++;
  };
  skip();
  if (text[i] !== "{") return null;
  i++;
  skip();
  if (text[i] === "}") return fields;
  for (;;) {
    skip();
    if (text[i] !== '"') return null;
    const keyEnd = pastString(text, i);
    if (keyEnd < 0) return null;
    let key: string;
    try {
      key = JSON.parse(text.slice(i, keyEnd)) as string;
    } catch {
      return null;
    }
    i = keyEnd;
    skip();
    if (text[i] !== ":") return null;
    i++;
    skip();
    const start = i;
    const end = pastValue(text, i);
    if (end < 0 || end === start) return null;
    let valueEnd = end;
    while (valueEnd > start && isSpace(text[valueEnd - 1])) valueEnd--;
    fields.set(key, { start, end: valueEnd });
    i = end;
    skip();
    if (text[i] === "}") return fields;
    if (text[i] !== ",") return null;
    i++;
  }
}

/** A value spliced as this exact JSON text. */
export class JsonText {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** A time in seconds that keeps its fraction ("5.000"): Ruby reads a Float, as Sidekiq's Time.now.to_f writes it, never an Integer. */
export const seconds = (sec: number): JsonText => new JsonText(sec.toFixed(3));

/** A value's JSON text as spliceFields writes it. */
export const encodeValue = (value: unknown): string => (value instanceof JsonText ? value.text : JSON.stringify(value));
const encode = encodeValue;

/**
 * `text` with each field set to the JSON of its value: replaced in place if
 * present, appended otherwise. Every other byte is kept. Null if `text` is
 * not a JSON object.
 */
export function spliceFields(text: string, values: Record<string, unknown>): string | null {
  const fields = topLevelFields(text);
  if (!fields) return null;
  const replaced = [...fields.entries()]
    .filter(([key]) => Object.hasOwn(values, key))
    .sort((a, b) => a[1].start - b[1].start);
  let out = "";
  let at = 0;
  for (const [key, span] of replaced) {
    out += text.slice(at, span.start) + encode(values[key]);
    at = span.end;
  }
  out += text.slice(at);
  const added = Object.keys(values).filter((key) => !fields.has(key));
  if (added.length === 0) return out;
  const close = out.lastIndexOf("}");
  const tail = added.map((key) => `${JSON.stringify(key)}:${encode(values[key])}`).join(",");
  return out.slice(0, close) + (fields.size > 0 ? "," : "") + tail + out.slice(close);
}
