// Checking `workflows` at createTickq: a name becomes part of Redis values
// and HTTP paths, so it is a plain word; `retry` a count; `run` a function.
import { TickqError } from "../errors.js";
import { checkKnownKeys } from "../options.js";
import type { WorkflowDefinition, WorkflowRegistry, WorkflowTrigger } from "./types.js";

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const DEFINITION_KEYS: Readonly<Record<keyof WorkflowDefinition, true>> = {
  run: true,
  retry: true,
  backoff: true,
  onFailure: true,
  trigger: true,
};
const TRIGGER_KEYS: Readonly<Record<keyof WorkflowTrigger, true>> = { event: true, id: true };

function checkTrigger(name: string, trigger: unknown): void {
  if (trigger === undefined) return;
  if (typeof trigger !== "object" || trigger === null)
    throw new TickqError("BAD_OPTIONS", `workflow "${name}": trigger must be { event, id?(data) }`);
  checkKnownKeys(trigger, TRIGGER_KEYS, `workflow "${name}": trigger`);
  const { event, id } = trigger as WorkflowTrigger;
  if (typeof event !== "string" || event === "")
    throw new TickqError("BAD_OPTIONS", `workflow "${name}": trigger.event must be a non-empty string`);
  if (id !== undefined && typeof id !== "function")
    throw new TickqError("BAD_OPTIONS", `workflow "${name}": trigger.id must be a function of the event's data`);
}

export function checkWorkflows(workflows: WorkflowRegistry | undefined): WorkflowRegistry {
  if (workflows === undefined) return {};
  if (typeof workflows !== "object" || workflows === null) {
    throw new TickqError("BAD_OPTIONS", "`workflows` must be an object of name → { run(input, step), retry? }");
  }
  for (const [name, definition] of Object.entries(workflows)) {
    if (!NAME.test(name)) {
      throw new TickqError("BAD_OPTIONS", `workflow name ${JSON.stringify(name)} must be 1–128 of A–Z a–z 0–9 _ . -`);
    }
    if (typeof (definition as WorkflowDefinition | undefined)?.run !== "function") {
      throw new TickqError("BAD_OPTIONS", `workflow "${name}" needs run(input, step)`);
    }
    checkKnownKeys(definition, DEFINITION_KEYS, `workflow "${name}"`);
    const { retry, backoff, onFailure } = definition;
    checkTrigger(name, definition.trigger);
    if (retry !== undefined && !(Number.isInteger(retry) && retry >= 0)) {
      throw new TickqError("BAD_OPTIONS", `workflow "${name}": retry must be a whole number ≥ 0, got ${String(retry)}`);
    }
    for (const [key, fn] of [
      ["backoff", backoff],
      ["onFailure", onFailure],
    ] as const) {
      if (fn !== undefined && typeof fn !== "function") {
        throw new TickqError("BAD_OPTIONS", `workflow "${name}": ${key} must be a function`);
      }
    }
  }
  return workflows;
}

export function workflowDefinition(
  workflows: WorkflowRegistry,
  name: string,
): WorkflowDefinition<never, unknown> | undefined {
  return Object.hasOwn(workflows, name) ? workflows[name] : undefined;
}
