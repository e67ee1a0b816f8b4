// The Lua scripts the local REST server runs: the ones tickq ships, known by
// their SHA-1. A script may call any command Redis allows in scripts
// (FLUSHALL, SWAPDB…), so a command allowlist
// that let any EVAL through would guard nothing.
import { createHash } from "node:crypto";
import { scripts } from "../../src/lua/index.js";

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

const SHIPPED = new Set(Object.values(scripts).map((script) => sha1(script.text)));

/** Whether the script `text` is one tickq ships. */
export const isShippedText = (text: string): boolean => SHIPPED.has(sha1(text));

/** Whether `sha` (hex, any case) names a script tickq ships. */
export const isShippedSha = (sha: string): boolean => SHIPPED.has(sha.toLowerCase());
