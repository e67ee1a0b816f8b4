// The text a retried job is pushed with: its stored text with retry_count
// one lower, as Sidekiq's retry does (the manual run does not use up one
// of its retries). Spliced, never re-encoded.
import { spliceFields } from "../job/json-splice.js";

/** The fields a retry sets: retry_count one lower; undefined when it has no numeric retry_count. */
export function retriedFields(raw: string): Record<string, unknown> | undefined {
  let count: unknown;
  try {
    count = (JSON.parse(raw) as { retry_count?: unknown }).retry_count;
  } catch {
    return undefined;
  }
  if (typeof count !== "number" || !Number.isFinite(count)) return undefined;
  return { retry_count: count - 1 };
}

/** `raw` with `fields` spliced in (itself when none, or when it is not a JSON object). */
export function withFields(raw: string, fields: Record<string, unknown> | undefined): string {
  return fields ? (spliceFields(raw, fields) ?? raw) : raw;
}
