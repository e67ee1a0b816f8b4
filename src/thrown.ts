// What a thrown value that is not an Error says, for a job's error_message,
// a workflow's error and jobs.result: its type and its JSON
// (`throw { code: 42, reason: "quota" }` is `object: {"code":42,"reason":"quota"}`,
// not `[object Object]`). A string is itself and undefined is "undefined",
// as before. The JSON is bounded while it is written, not only after: long
// strings are cut and past a number of values the rest is left out, so a
// huge thrown object costs little. A value JSON cannot write (a symbol, a
// function, a cycle, a throwing getter) falls back to String(); nothing
// here throws.

/** Characters kept of each string inside a thrown value. */
const MAX_STRING = 10_000;
/** Values written before the rest of a thrown value is left out. */
const MAX_VALUES = 2_000;

/** `typeof` of a thrown value, "null" for null. */
export function thrownType(value: unknown): string {
  return value === null ? "null" : typeof value;
}

function boundedJson(value: unknown): string | undefined {
  let written = 0;
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (++written > MAX_VALUES) return undefined;
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "string" && v.length > MAX_STRING) return `${v.slice(0, MAX_STRING)}…`;
    if (typeof v === "object" && v !== null) {
      // A value met again is a cycle (or a shared branch): written once.
      if (seen.has(v)) return "[seen]";
      seen.add(v);
    }
    return v;
  });
}

/** The text of a thrown non-Error: a string itself, else its bounded JSON, else String(), else a note. */
export function thrownText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "undefined";
  try {
    const json = boundedJson(value);
    if (json !== undefined) return json;
  } catch {
    // Not JSON (a getter or toJSON that throws, a proxy): String() may still say something.
  }
  try {
    return String(value);
  } catch {
    return "(a thrown value that cannot be printed)";
  }
}
