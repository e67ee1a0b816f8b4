// visibleControls: a page's text shows each control and bidi character as a marked escape; a
// title, textarea or script gets the escape unmarked; attribute values and the page's own
// tabs and line breaks are left as they are.
import { describe, expect, it } from "vitest";
import { visibleControls } from "../../src/dashboard/visible.js";

describe("visibleControls", () => {
  it("marks each control and bidi character of a page's text as a visible escape", () => {
    expect(visibleControls("<dd>a\u202eb\u001b[2J\u0085</dd>")).toBe(
      '<dd>a<span class="esc">\\u202e</span>b<span class="esc">\\u001b</span>[2J<span class="esc">\\u0085</span></dd>',
    );
  });

  it("leaves attribute values, tabs and line breaks, and a page without such characters, unchanged", () => {
    const row = '<tr data-jid="x\u202ey"><td>\tx\r\ny</td></tr>';
    expect(visibleControls(row)).toBe(row);
    expect(visibleControls('<tr data-jid="x\u202ey"><td>x\u202ey</td></tr>')).toBe(
      '<tr data-jid="x\u202ey"><td>x<span class="esc">\\u202e</span>y</td></tr>',
    );
  });

  it("writes the escape without markup in title, textarea and script, up to their closing tag", () => {
    expect(visibleControls("<title>Job a\u202eb · tickq</title><p>\u2066</p>")).toBe(
      '<title>Job a\\u202eb · tickq</title><p><span class="esc">\\u2066</span></p>',
    );
    expect(visibleControls('<TEXTAREA name="input">{"a":"\u202e"}</TEXTAREA>')).toBe(
      '<TEXTAREA name="input">{"a":"\\u202e"}</TEXTAREA>',
    );
    expect(JSON.parse('{"a":"\\u202e"}').a).toBe("\u202e"); // JSON in a textarea parses back the same
  });

  it("keeps a stray < and text after the last tag", () => {
    expect(visibleControls("a < b\u202e")).toBe('a < b<span class="esc">\\u202e</span>');
  });
});
