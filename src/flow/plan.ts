// At enqueue, a flow job's keys are computed from its definition and the
// `unique` option, every one checked before anything is written: a key
// function that throws or returns no string, a limit below 1 or an unknown
// mode is a TickqError (400 over HTTP).
import { TickqError } from "../errors.js";
import type { JobDefinition } from "../job/definition.js";
import { canonicalJson } from "./canonical.js";
import type { FlowPlan } from "../job/flow-descriptor.js";
import type { UniqueMode } from "../job/enqueue-options.js";
import { UNIQUE_MODES } from "./types.js";

/** The longest key a key function may return. */
const MAX_KEY = 1_024;

function fail(name: string, message: string): never {
  throw new TickqError("BAD_ARGS", `Job "${name}": ${message}`);
}

function keyOf(name: string, what: string, fn: unknown, args: unknown[]): string {
  if (typeof fn !== "function") fail(name, `${what} must be a function (args) => string`);
  let key: unknown;
  try {
    key = (fn as (a: unknown[]) => unknown)(args);
  } catch (error) {
    throw new TickqError("BAD_ARGS", `Job "${name}": ${what} threw: ${(error as Error)?.message ?? String(error)}`, {
      cause: error,
    });
  }
  if (typeof key !== "string" || key === "")
    fail(name, `${what} must return a non-empty string, got ${key === "" ? '""' : typeof key}`);
  if (key.length > MAX_KEY) fail(name, `${what} returned a key of ${key.length} characters (at most ${MAX_KEY})`);
  if (!key.isWellFormed())
    fail(name, `${what} returned a string with a lone UTF-16 surrogate; use String.prototype.toWellFormed()`);
  return key;
}

function limitOf(name: string, what: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
    fail(name, `${what} must be a whole number ≥ 1, got ${String(value)}`);
  return value;
}

/**
 * A key of one job name: its name, ':' and the key. The name's ':' and '%'
 * are %-escaped, so the first ':' ends the name and job `A` with key `b:c`
 * never shares a slot or a rate log with job `A:b` with key `c`. A name
 * without either (most) keeps the shape older versions wrote.
 */
export function namedKey(name: string, key: string): string {
  return `${name.replace(/%/g, "%25").replace(/:/g, "%3A")}:${key}`;
}

function uniqueKeyOf(name: string, definition: JobDefinition<never>, args: unknown[]): string {
  if (definition.uniqueKey !== undefined) return keyOf(name, "uniqueKey", definition.uniqueKey, args);
  return `${name}:${canonicalJson(args)}`;
}

/** The flow plan of a job, or undefined for a plain job (no unique mode, no limits). */
export function planFlow(
  name: string,
  definition: JobDefinition<never>,
  args: unknown[],
  unique: unknown,
): FlowPlan | undefined {
  if (unique !== undefined && !UNIQUE_MODES.includes(unique as UniqueMode)) {
    fail(name, `unknown unique mode ${JSON.stringify(unique)}; modes are ${UNIQUE_MODES.join(", ")}`);
  }
  const { concurrency, rateLimit } = definition;
  if (unique === undefined && concurrency === undefined && rateLimit === undefined) return undefined;
  const plan: FlowPlan = { locks: [] };
  if (unique !== undefined) {
    const key = uniqueKeyOf(name, definition, args);
    if (unique === "until-executed") plan.claim = key;
    else plan.locks.push([`u:${key}`, 1, true]);
    if (unique === "coalesce") plan.wait = key;
  }
  if (concurrency !== undefined) {
    if (typeof concurrency !== "object" || concurrency === null) fail(name, "concurrency must be { key, limit }");
    const limit = limitOf(name, "concurrency.limit", concurrency.limit);
    plan.locks.push([`c:${namedKey(name, keyOf(name, "concurrency.key", concurrency.key, args))}`, limit, false]);
  }
  if (rateLimit !== undefined) {
    if (typeof rateLimit !== "object" || rateLimit === null) fail(name, "rateLimit must be { key, limit, periodMs }");
    const limit = limitOf(name, "rateLimit.limit", rateLimit.limit);
    const periodMs = limitOf(name, "rateLimit.periodMs", rateLimit.periodMs);
    plan.rate = { key: namedKey(name, keyOf(name, "rateLimit.key", rateLimit.key, args)), limit, periodMs };
  }
  return plan;
}
