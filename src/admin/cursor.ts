// List cursors: opaque, URL-safe strings that say which listing they belong
// to (state, order, filters) and where it resumes (page.lua's cursor fields,
// and for queued jobs of every queue, the queue being read). A cursor from
// another listing, or one that was tampered with, is a TickqError BAD_CURSOR.
import { TickqError } from "../errors.js";

const VERSION = "c1";

export interface CursorScope {
  state: string;
  order: string;
  queue: string;
  name: string;
}

function toBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): string {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

export function encodeCursor(scope: CursorScope, fields: (string | number)[]): string {
  return `${VERSION}.${toBase64Url(JSON.stringify([scope.state, scope.order, scope.queue, scope.name, ...fields.map(String)]))}`;
}

/** The fields of `cursor`, checked against the listing it is used for. */
export function decodeCursor(cursor: string, scope: CursorScope): string[] {
  let parts: unknown;
  try {
    if (!cursor.startsWith(`${VERSION}.`)) throw new Error("version");
    parts = JSON.parse(fromBase64Url(cursor.slice(VERSION.length + 1)));
  } catch {
    throw new TickqError("BAD_CURSOR", "cursor is malformed: pass back the `cursor` a page answered, unchanged");
  }
  if (!Array.isArray(parts) || parts.length < 4 || !parts.every((p) => typeof p === "string")) {
    throw new TickqError("BAD_CURSOR", "cursor is malformed: pass back the `cursor` a page answered, unchanged");
  }
  const [state, order, queue, name] = parts as string[];
  if (state !== scope.state || order !== scope.order || queue !== scope.queue || name !== scope.name) {
    throw new TickqError(
      "BAD_CURSOR",
      `cursor belongs to another listing (state ${state}, order ${order}${queue ? `, queue ${queue}` : ""}${name ? `, name ${name}` : ""}): list with the same state, order and filters`,
    );
  }
  return (parts as string[]).slice(4);
}
