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
  version: true,
  versions: true,
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
    checkVersions(name, definition);
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

/** `version` a whole number ≥ 1; `versions` older ones' code, each a function, none the current version. */
function checkVersions(name: string, definition: WorkflowDefinition<never, unknown>): void {
  const { version = 1, versions } = definition;
  if (!isVersion(version)) {
    throw new TickqError(
      "BAD_OPTIONS",
      `workflow "${name}": version must be a whole number ≥ 1, got ${String(version)}`,
    );
  }
  if (versions === undefined) return;
  if (typeof versions !== "object" || versions === null || Array.isArray(versions)) {
    throw new TickqError("BAD_OPTIONS", `workflow "${name}": versions must be an object of version → run(input, step)`);
  }
  for (const [key, code] of Object.entries(versions)) {
    if (!isVersion(Number(key)) || String(Number(key)) !== key) {
      throw new TickqError(
        "BAD_OPTIONS",
        `workflow "${name}": versions key ${JSON.stringify(key)} must be a whole number ≥ 1`,
      );
    }
    if (Number(key) === version) {
      throw new TickqError(
        "BAD_OPTIONS",
        `workflow "${name}": versions[${key}] is the current version: its code is \`run\`; list only older versions`,
      );
    }
    if (typeof code !== "function") {
      throw new TickqError("BAD_OPTIONS", `workflow "${name}": versions[${key}] must be a function (input, step)`);
    }
  }
}

function isVersion(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
}

export function workflowDefinition(
  workflows: WorkflowRegistry,
  name: string,
): WorkflowDefinition<never, unknown> | undefined {
  return Object.hasOwn(workflows, name) ? workflows[name] : undefined;
}
