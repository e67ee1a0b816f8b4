// Text from jobs reaches every page: an error message, args, a result, a run id, a step name.
// HTML escaping stops markup, not the characters that change what a reader sees: a bidi override
// (U+202E) reverses the rest of its line ("invoice", U+202E, "fdp.exe" reads "invoiceexe.pdf"), and C0/C1
// controls show as nothing. So each page's text is walked once before it is sent, and each such
// character becomes a visible escape (`\u202e`, as printable.ts writes it for a terminal), marked
// `.esc`. Attribute values stay as they are: a jid in data-jid or a form's value must reach the
// server unchanged. In title, textarea, script and style (text the browser does not parse as
// markup) the escape is written without the mark; in JSON it parses back to the same character.

import { UNSAFE_ON_A_PAGE as UNSAFE, unicodeEscape as escaped } from "../printable.js";

const HAS_UNSAFE = new RegExp(UNSAFE.source);
/** Elements whose content is text up to their closing tag. */
const RAW_TEXT = /^<(title|textarea|script|style)[\s>]/i;

const marked = (text: string) => text.replace(UNSAFE, (c) => `<span class="esc">${escaped(c)}</span>`);
const plain = (text: string) => text.replace(UNSAFE, escaped);

/** `page` (HTML) with every control and bidi character of its text shown as a visible escape. */
export function visibleControls(page: string): string {
  if (!HAS_UNSAFE.test(page)) return page;
  let out = "";
  let at = 0;
  while (at < page.length) {
    const open = page.indexOf("<", at);
    const close = open < 0 ? -1 : page.indexOf(">", open);
    if (close < 0) return out + marked(page.slice(at));
    out += marked(page.slice(at, open)) + page.slice(open, close + 1);
    at = close + 1;
    const raw = RAW_TEXT.exec(page.slice(open, close + 1));
    if (raw) {
      const closing = new RegExp(`</${raw[1]}`, "gi");
      closing.lastIndex = at;
      const stop = closing.exec(page)?.index ?? page.length;
      out += plain(page.slice(at, stop));
      at = stop;
    }
  }
  return out;
}
