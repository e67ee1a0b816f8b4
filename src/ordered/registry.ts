// Checking `ordered` at createTickq: a name becomes part of Redis keys
// (`o:NAME:…`) and of the words a tick keeps per held id ("NAME ID"), so it
// is a plain word without ':' or spaces; a name cannot be both a plain and
// an ordered job, so POST /jobs and the errors stay unambiguous.
import { TickqError } from "../errors.js";
import { isStandardSchema } from "../job/schema-check.js";
import { checkKnownKeys } from "../options.js";
import type { JobRegistry } from "../job/definition.js";
import type { OrderedDefinition, OrderedRegistry } from "./types.js";

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const DEFINITION_KEYS: Readonly<Record<keyof OrderedDefinition, true>> = {
  perform: true,
  retry: true,
  backoff: true,
  backoffMs: true,
  schema: true,
  maxPayloads: true,
};

export function checkOrdered(ordered: OrderedRegistry | undefined, jobs: JobRegistry): OrderedRegistry {
  if (ordered === undefined) return {};
  if (typeof ordered !== "object" || ordered === null) {
    throw new TickqError(
      "BAD_OPTIONS",
      "`ordered` must be an object of name → { perform(id, payloads, ctx), retry?, backoffMs? }",
    );
  }
  for (const [name, definition] of Object.entries(ordered)) {
    if (!NAME.test(name)) {
      throw new TickqError(
        "BAD_OPTIONS",
        `ordered job name ${JSON.stringify(name)} must be 1–128 of A–Z a–z 0–9 _ . -`,
      );
    }
    if (Object.hasOwn(jobs, name)) {
      throw new TickqError("BAD_OPTIONS", `"${name}" is declared both in jobs and in ordered: give each its own name`);
    }
    if (typeof (definition as OrderedDefinition<never> | undefined)?.perform !== "function") {
      throw new TickqError("BAD_OPTIONS", `ordered job "${name}" needs perform(id, payloads, ctx)`);
    }
    checkKnownKeys(definition, DEFINITION_KEYS, `ordered job "${name}"`);
    const cap = definition.maxPayloads;
    if (cap !== undefined && !(typeof cap === "number" && Number.isSafeInteger(cap) && cap >= 1)) {
      throw new TickqError(
        "BAD_OPTIONS",
        `ordered job "${name}": maxPayloads must be an integer ≥ 1 (payloads an execution), got ${String(cap)}`,
      );
    }
    if (definition.schema !== undefined && !isStandardSchema(definition.schema)) {
      throw new TickqError(
        "BAD_OPTIONS",
        `ordered job "${name}": schema must be a Standard Schema validator (valibot, zod, arktype…)`,
      );
    }
  }
  return ordered;
}

/**
 * The names as a tick's ARGV carries them (lib/ordered/state.lua ordered_names): "NAME CAP" for a name
 * with `maxPayloads`, the name alone otherwise (what a tick sent before the option existed).
 */
export function orderedWireNames(ordered: OrderedRegistry): string[] {
  return Object.entries(ordered).map(([name, d]) => (d.maxPayloads === undefined ? name : `${name} ${d.maxPayloads}`));
}

export function orderedDefinition(ordered: OrderedRegistry, name: string): OrderedDefinition<never> | undefined {
  return Object.hasOwn(ordered, name) ? ordered[name] : undefined;
}
