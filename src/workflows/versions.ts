// Which code runs a run: the version it started on picks the definition's
// `run` (its current `version`) or one kept under `versions`. A run stored
// before versions existed has none and is version 1.
import type { WorkflowCode, WorkflowDefinition } from "./types.js";

/** The version a new run of `definition` starts on. */
export function currentVersion(definition: WorkflowDefinition<never, unknown>): number {
  return definition.version ?? 1;
}

/** A stored `version` field as a number: absent or unreadable (an older release wrote none) is 1. */
export function storedVersion(field: string | undefined): number {
  const version = Number(field);
  return Number.isSafeInteger(version) && version >= 1 ? version : 1;
}

/** The code for runs of `version`, or undefined when this deployment does not declare that version. */
export function codeOf(
  definition: WorkflowDefinition<never, unknown>,
  version: number,
): WorkflowCode<never, unknown> | undefined {
  if (version === currentVersion(definition)) return definition.run.bind(definition);
  const versions = definition.versions;
  return versions && Object.hasOwn(versions, version) ? versions[version] : undefined;
}

/** The definition that runs `version`: its `run` swapped for that version's code, or undefined. */
export function definitionAt(
  definition: WorkflowDefinition<never, unknown>,
  version: number,
): WorkflowDefinition<never, unknown> | undefined {
  if (version === currentVersion(definition)) return definition;
  const code = codeOf(definition, version);
  return code && { ...definition, run: code };
}
