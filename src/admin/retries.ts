// What retry applies to a stored job: its own `retry`, or, when it has none,
// its definition's, as the tick takes it (tick/passes/execute.ts). The parsed
// job (admin/entry.ts) reads a missing `retry` as false, which the tick never
// applies: this says what it does.
import { retryLimit } from "../tick/retry.js";
import { definitionOf, type Runtime } from "../tick/runtime.js";
import type { JobInfo } from "./types.js";

/** `info` with `retries` set (the same object). */
export function withRetries<T extends JobInfo | null>(runtime: Runtime, info: T): T {
  if (info === null) return info;
  const own = ownRetry(info.raw);
  if (own !== undefined) {
    info.retries = { limit: retryLimit(own, runtime.maxRetries), from: "job" };
    return info;
  }
  const definition = info.name === "" ? undefined : definitionOf(runtime, info.name);
  if (definition !== undefined)
    info.retries = { limit: retryLimit(definition.retry ?? true, runtime.maxRetries), from: "definition" };
  return info;
}

/** The stored `retry`, or undefined when the text has none (or null, which the tick treats as none). */
function ownRetry(raw: string): unknown {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const retry = (value as { retry?: unknown }).retry;
    return retry === null ? undefined : retry;
  } catch {
    return undefined;
  }
}
