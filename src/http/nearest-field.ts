// "did you mean delayMs?" for a field a body does not take: the known field
// it is closest to (a prefix of it, or a few edits away), or none.

/** The known name closest to `given`, or undefined when none is close enough to suggest. */
export function nearestField(given: string, known: readonly string[]): string | undefined {
  const lower = given.toLowerCase();
  const prefixed = known.find((k) => k.toLowerCase().startsWith(lower) || lower.startsWith(k.toLowerCase()));
  if (prefixed && lower.length >= 2) return prefixed;
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(given.length / 3)) + 1;
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}
