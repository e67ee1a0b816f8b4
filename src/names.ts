// Queue names and jids travel as Redis key parts, as words of a tick's
// registration and inside job JSON: no whitespace, no lone surrogates
// (which UTF-8 cannot carry, so Redis would see another name).
export function isCleanName(value: unknown, maxLength = 256): value is string {
  return (
    typeof value === "string" && value !== "" && value.length <= maxLength && !/\s/.test(value) && value.isWellFormed()
  );
}
