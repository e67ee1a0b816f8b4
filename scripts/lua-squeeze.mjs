// Squeezes one line of Lua for shipping: drops the spaces between tokens
// that cannot merge without them, and a trailing `-- comment`. Strings are
// copied untouched. The Worker's size budget is why (about 0.5 KB gzipped
// over every script); the .lua files stay as written for readers.
// A space stays where dropping it would change the tokens: between two
// word characters (`local x`), in `- -` (would open a comment), `[ [` and
// `[ =` (a long bracket), and next to a `.` beside a digit (`1 .. x` would
// lex as the malformed number `1..`). Long strings and long comments are
// not used in tickq's scripts; a line holding `[[` or `[=` is left as is.
const PUNCTUATION = new Set("=,(){}[]<>+-*/%#;:~^.'\"".split(""));

export function squeezeLua(line) {
  if (line.includes("[[") || line.includes("[=")) return line;
  let out = "";
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== c) j += line[j] === "\\" ? 2 : 1;
      out += line.slice(i, j + 1);
      i = j + 1;
    } else if (c === "-" && line[i + 1] === "-") {
      break;
    } else if (c === " " || c === "\t") {
      let j = i;
      while (line[j] === " " || line[j] === "\t") j++;
      const before = out.at(-1), after = line[j];
      if (before !== undefined && after !== undefined && !droppable(before, after)) out += " ";
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out.trimEnd();
}

function droppable(before, after) {
  if (before === "-" && after === "-") return false;
  if (before === "[" && (after === "[" || after === "=")) return false;
  if ((before === "." && /\d/.test(after)) || (after === "." && /\d/.test(before))) return false;
  return PUNCTUATION.has(before) || PUNCTUATION.has(after);
}
