// How deep a JSON text nests, read without parsing it. JSON.parse handles
// any depth, but JSON.stringify and every recursive walk of the result
// overflow the stack past a few thousand levels; any client of the Redis can
// store such a job, so a reader checks before it parses.

/** The deepest a stored job may nest and still be read as a job: far beyond any real one. */
export const MAX_JOB_DEPTH = 256;

/** Whether the arrays and objects of `text` nest at most `max` deep (brackets inside strings do not count). */
export function nestsWithin(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34) {
      // a string: skip to its closing quote, past escapes
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92) i++;
    } else if (ch === 91 || ch === 123) {
      if (++depth > max) return false;
    } else if (ch === 93 || ch === 125) {
      depth--;
    }
  }
  return true;
}
