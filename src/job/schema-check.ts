// Checking args (or an ordered payload) against a job's Standard Schema
// validator (valibot, zod, arktype…): the first issue becomes a BAD_ARGS
// TickqError naming the path that failed, `args[0].email: expected string`.
// The validator's output is what gets stored, so a schema's defaults and
// transforms reach the handler; it must itself be JSON (json-value.ts).
import { TickqError } from "../errors.js";
import { childPath } from "./json-value.js";
import type { StandardSchemaV1 } from "./standard-schema.js";

function keyOf(segment: PropertyKey | StandardSchemaV1.PathSegment): PropertyKey {
  return typeof segment === "object" && segment !== null ? segment.key : segment;
}

/** `args[0].email` from a Standard Schema issue path under `root`. */
export function issuePath(root: string, path: StandardSchemaV1.Issue["path"]): string {
  let text = root;
  for (const segment of path ?? []) {
    const key = keyOf(segment);
    if (typeof key === "symbol") text += `[${String(key)}]`;
    else text = childPath(text, typeof key === "string" && /^\d+$/.test(key) ? Number(key) : key);
  }
  return text;
}

/** Whether `value` is a Standard Schema validator (`~standard.validate` a function). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as Partial<StandardSchemaV1>)["~standard"];
  return typeof props === "object" && props !== null && typeof props.validate === "function";
}

function failure(label: string, root: string, issues: readonly StandardSchemaV1.Issue[]): TickqError {
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : "";
  return new TickqError("BAD_ARGS", `${label}: ${issuePath(root, first?.path)}: ${first?.message ?? "invalid"}${more}`);
}

function outcome(result: StandardSchemaV1.Result<unknown>, label: string, root: string): unknown {
  if (result.issues) throw failure(label, root, result.issues);
  return result.value;
}

function thrown(label: string, error: unknown): TickqError {
  if (error instanceof TickqError) return error;
  return new TickqError(
    "BAD_ARGS",
    `${label}: its schema threw: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}

/**
 * The schema's output for `value`, or a BAD_ARGS TickqError. Synchronous
 * when the validator is (most are); a Promise when it is async.
 * `label` opens the message (`Job "signup"`), `root` names the value (`args`).
 */
export function checkBySchema(
  schema: StandardSchemaV1,
  value: unknown,
  label: string,
  root: string,
): unknown | Promise<unknown> {
  let result: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>;
  try {
    result = schema["~standard"].validate(value);
  } catch (error) {
    throw thrown(label, error);
  }
  if (result instanceof Promise) {
    return result.then(
      (r) => outcome(r, label, root),
      (error: unknown) => Promise.reject(thrown(label, error)),
    );
  }
  return outcome(result, label, root);
}
