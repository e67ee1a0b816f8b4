// A stored job's fields, read for display. Any client of the Redis writes
// jobs (Sidekiq included), so a field may hold any JSON value; hono's html
// calls toString() on what is no string, and {"toString":1} would fail the
// whole page. A field of the wrong type shows as malformed instead.
import { html } from "hono/html";
import { when, type Html } from "./layout.js";
import { jobTimeMs } from "../job/timestamp.js";

/** A value that is not of the type its field wants, as its JSON. */
export const malformed = (value: unknown): Html =>
  html`<span class="malformed">malformed: ${JSON.stringify(value) ?? typeof value}</span>`;

/** A text field: its text, "" when absent. */
export function textField(value: unknown): Html | string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : malformed(value);
}

/** A count (retry_count): its number. */
export function countField(value: unknown): Html | string {
  return typeof value === "number" && Number.isFinite(value) ? String(value) : malformed(value);
}

/** A job time (created_at, failed_at: epoch seconds, or Sidekiq 8's ms): as when() shows it, "" when absent. */
export function secondsField(value: unknown): Html | string {
  if (value === undefined || value === null) return "";
  return typeof value === "number" ? when(jobTimeMs(value)) : malformed(value);
}
