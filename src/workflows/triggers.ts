// Events start runs: a workflow that declares `trigger: { event, id? }` gets a
// run of each sendEvent of that event, with the event's data as its input.
// The caller starts them after it recorded the event, so a run does not take
// its own trigger as a kept event (its start comes after the event's
// sequence); and it starts them even when the event's id was seen before
// (a resend records nothing): the start is idempotent by the run's id, so a
// sender that failed between the record and the start finishes by resending.
import { TickqError } from "../errors.js";
import type { WorkflowRegistry } from "./types.js";

/** A run an event starts: its workflow, and its id (undefined: a new one). */
export interface TriggeredStart {
  name: string;
  id: string | undefined;
}

/**
 * The runs `event` starts: one per workflow whose trigger names it. Its id is the trigger's `id(data)`, else
 * `NAME:EVENTID` when the event has an id (so a resent event starts no second run), else a new one.
 */
export function triggeredStarts(
  workflows: WorkflowRegistry,
  event: string,
  data: unknown,
  eventId: string | undefined,
): TriggeredStart[] {
  const starts: TriggeredStart[] = [];
  for (const [name, definition] of Object.entries(workflows)) {
    const trigger = definition.trigger;
    if (trigger?.event !== event) continue;
    if (trigger.id === undefined) {
      starts.push({ name, id: eventId === undefined ? undefined : `${name}:${eventId}` });
      continue;
    }
    const id: unknown = (trigger.id as (data: unknown) => unknown)(data);
    if (typeof id !== "string" || id === "")
      throw new TickqError(
        "BAD_ARGS",
        `workflow "${name}": trigger.id must return a non-empty string for event "${event}", got ${typeof id === "string" ? '""' : typeof id}`,
      );
    starts.push({ name, id });
  }
  return starts;
}
