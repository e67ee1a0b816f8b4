// Checking `jobs` at createTickq: each entry is a handler or a definition
// whose every key is known and whose schema, when given, is a Standard
// Schema validator, so a typo (`retires: 3`) or a zod object passed where a
// schema goes fails at start, not at the first enqueue.
import { TickqError } from "../errors.js";
import { checkKnownKeys } from "../options.js";
import { hasControl, terminalJson } from "../printable.js";
import type { JobDefinition, JobRegistry } from "../job/definition.js";
import { isStandardSchema } from "../job/schema-check.js";
import { checkDebounce } from "../debounce/check.js";
import { checkOrderDefinition } from "../order/fields.js";

const DEFINITION_KEYS: Readonly<Record<keyof JobDefinition, true>> = {
  perform: true,
  queue: true,
  retry: true,
  backoff: true,
  backoffMs: true,
  timeoutMs: true,
  uniqueKey: true,
  concurrency: true,
  rateLimit: true,
  schema: true,
  debounce: true,
  priority: true,
  group: true,
};

/** True when some job has a schema: enqueue then checks args against it. */
export function checkJobDefinitions(jobs: JobRegistry): boolean {
  let schemas = false;
  for (const [name, entry] of Object.entries(jobs)) {
    if (hasControl(name))
      throw new TickqError(
        "BAD_OPTIONS",
        `job name ${terminalJson(name)} holds a control character (C0, C1, DEL), which no terminal or log can show: rename it`,
      );
    if (typeof entry === "function") continue;
    if (typeof entry !== "object" || entry === null || typeof entry.perform !== "function") {
      throw new TickqError("BAD_OPTIONS", `job "${name}" must be a handler (args, ctx) => … or { perform, … }`);
    }
    checkKnownKeys(entry, DEFINITION_KEYS, `job "${name}"`);
    checkDebounce(name, entry as JobDefinition<never>);
    checkOrderDefinition(name, entry);
    if (entry.schema === undefined) continue;
    if (!isStandardSchema(entry.schema)) {
      throw new TickqError(
        "BAD_OPTIONS",
        `job "${name}": schema must be a Standard Schema validator (valibot, zod, arktype…: an object with "~standard".validate)`,
      );
    }
    schemas = true;
  }
  return schemas;
}
