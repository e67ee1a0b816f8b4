// What tickq prints: every control character (C0, C1, DEL) and every
// bidirectional override or line separator shows as a visible escape;
// line breaks stay only where tickq lays out lines itself; JSON for a
// terminal parses back to the same value with C1 and DEL as \u escapes.
import { describe, expect, it } from "vitest";
import { hasControl, printable, printableErrorText, printableLines, terminalJson } from "../../src/printable.js";

const ALL_CONTROLS = [
  ...Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)),
  ...Array.from({ length: 0x21 }, (_, c) => String.fromCharCode(0x7f + c)),
].join("");
const ACTING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("printable", () => {
  it("escapes every C0 and C1 control and DEL, newlines too, and leaves other text alone", () => {
    const out = printable(`a${ALL_CONTROLS}z é 日本 \\x1b`);
    expect(out).not.toMatch(ACTING);
    expect(out).toContain("\\x00\\x01");
    expect(out).toContain("\\t\\n\\x0b\\x0c\\r");
    expect(out).toContain("\\x1b\\x1c");
    expect(out).toContain("\\x7f\\x80");
    expect(out).toContain("\\x9b\\x9c\\x9d\\x9e\\x9f");
    expect(out.startsWith("a")).toBe(true);
    expect(out.endsWith("z é 日本 \\x1b")).toBe(true);
  });

  it("escapes bidirectional overrides and the Unicode line separators", () => {
    expect(printable("pay\u202eusd\u2066x\u2069\u2028\u2029")).toBe("pay\\u202eusd\\u2066x\\u2069\\u2028\\u2029");
  });

  it("is idempotent: an escape holds no control character", () => {
    const once = printable(ALL_CONTROLS);
    expect(printable(once)).toBe(once);
  });

  it("keeps line breaks in printableLines, and escapes a carriage return", () => {
    expect(printableLines("one\ntwo\r\x1b[2Kthree")).toBe("one\ntwo\\r\\x1b[2Kthree");
  });
});

describe("hasControl", () => {
  it("finds C0, C1 and DEL, not printable text nor bidirectional marks", () => {
    for (const c of ALL_CONTROLS) expect(hasControl(`a${c}b`)).toBe(true);
    expect(hasControl("order 7: é 日本 \u202e")).toBe(false);
  });
});

describe("terminalJson", () => {
  it("writes C1, DEL and the bidirectional marks as \\u escapes and parses back to the same value", () => {
    const value = { text: `x${ALL_CONTROLS}\u202e\u2028y`, n: 1 };
    const json = terminalJson(value);
    expect(json).not.toMatch(ACTING);
    expect(json).toContain("\\u009b");
    expect(json).toContain("\\u007f");
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe("printableErrorText", () => {
  it("puts an error's name and message on one printable line, then its frames", () => {
    const error = new Error("bad\ninput\x1b]0;t\x07");
    const text = printableErrorText(error);
    const [head, ...frames] = text.split("\n");
    expect(head).toBe("Error: bad\\ninput\\x1b]0;t\\x07");
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toMatch(/^\s+at /);
  });

  it("describes a non-Error and one whose getters throw", () => {
    expect(printableErrorText("a\x1bb")).toBe("a\\x1bb");
    const hostile = new Error("x");
    Object.defineProperty(hostile, "message", {
      get() {
        throw new Error("no");
      },
    });
    expect(printableErrorText(hostile)).toBe("(an error that cannot be printed)");
  });
});
