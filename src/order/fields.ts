// A job's priority and group, checked at enqueue and written into its JSON
// as `tickq_priority` (only when not 0) and `tickq_group`: the scripts route
// a job by them (src/lua/lib/order/), and a job without either keeps the
// plain layout. Bad values are a TickqError before anything is written.
import { TickqError } from "../errors.js";
import { isPrintableName } from "../names.js";
import { terminalJson } from "../printable.js";
import type { JobDefinition } from "../job/definition.js";

/** The highest priority; the lowest is its negative (src/lua/lib/order/read-order.lua packs scores by it). */
export const MAX_PRIORITY = 1_000;

/** The longest group name. */
const MAX_GROUP = 256;

/** The job JSON fields of priority and group. */
export interface OrderFields {
  tickq_priority?: number;
  tickq_group?: string;
}

/** Whether `value` is a priority: an integer within ±MAX_PRIORITY. */
export function isPriority(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= MAX_PRIORITY;
}

function priorityOf(name: string, value: unknown): number {
  if (!isPriority(value))
    throw new TickqError(
      "BAD_ARGS",
      `Job "${name}": priority must be an integer from -${MAX_PRIORITY} to ${MAX_PRIORITY}, got ${String(value)}`,
    );
  return value;
}

function groupName(name: string, group: unknown, from: string): string {
  if (!isPrintableName(group, MAX_GROUP))
    throw new TickqError(
      "BAD_ARGS",
      `Job "${name}": ${from} must be a non-empty string of at most ${MAX_GROUP} characters without whitespace or control characters, got ${
        typeof group === "string" ? terminalJson(group) : typeof group
      }`,
    );
  return group;
}

function groupOf(name: string, definition: JobDefinition<never>, args: unknown[], option: unknown): string | undefined {
  if (option !== undefined) return groupName(name, option, "group");
  if (definition.group === undefined) return undefined;
  let group: unknown;
  try {
    group = (definition.group as (a: unknown[]) => unknown)(args);
  } catch (error) {
    throw new TickqError("BAD_ARGS", `Job "${name}": group threw: ${(error as Error)?.message ?? String(error)}`, {
      cause: error,
    });
  }
  return groupName(name, group, "group(args)");
}

/** The order fields of one job: the enqueue options first, then the definition's defaults. */
export function orderFields(
  name: string,
  definition: JobDefinition<never>,
  args: unknown[],
  options: { priority?: unknown; group?: unknown },
): OrderFields | undefined {
  const priority = priorityOf(name, options.priority ?? definition.priority ?? 0);
  const group = groupOf(name, definition, args, options.group);
  if (priority === 0 && group === undefined) return undefined;
  const fields: OrderFields = {};
  if (priority !== 0) fields.tickq_priority = priority;
  if (group !== undefined) fields.tickq_group = group;
  return fields;
}

/** Checks a definition's `priority` and `group` at createTickq: BAD_OPTIONS naming the job. */
export function checkOrderDefinition(name: string, definition: JobDefinition<never>): void {
  if (definition.priority !== undefined && !isPriority(definition.priority))
    throw new TickqError(
      "BAD_OPTIONS",
      `job "${name}": priority must be an integer from -${MAX_PRIORITY} to ${MAX_PRIORITY}, got ${String(definition.priority)}`,
    );
  if (definition.group !== undefined && typeof definition.group !== "function")
    throw new TickqError("BAD_OPTIONS", `job "${name}": group must be a function (args) => string`);
}
