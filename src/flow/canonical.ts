// The default unique key is the job name and its args as canonical JSON:
// object keys sorted at every depth, so {a,b} and {b,a} are one key.

export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    // fromEntries defines own properties, so an own "__proto__" key (JSON.parse
    // makes one) stays a key instead of setting the copy's prototype.
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, (v as Record<string, unknown>)[k]]),
    );
  });
}
