// The text a retried job is pushed with: its stored text with retry_count
// one lower, as Sidekiq's retry does (the manual run does not use up one
// of its retries). Spliced, never re-encoded.
import { spliceFields } from "../job/json-splice.js";

export function retriedText(raw: string): string {
  let count: unknown;
  try {
    count = (JSON.parse(raw) as { retry_count?: unknown }).retry_count;
  } catch {
    return raw;
  }
  if (typeof count !== "number" || !Number.isFinite(count)) return raw;
  return spliceFields(raw, { retry_count: count - 1 }) ?? raw;
}
