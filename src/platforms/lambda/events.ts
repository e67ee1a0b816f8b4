// The scheduled events that make a Lambda invocation tick: the input an EventBridge Scheduler schedule
// sets (tickq documents `{ "tickq": "tick" }`), or an EventBridge rule's own `Scheduled Event`.

/** A scheduled event that ticks. */
export type LambdaTickEvent = SchedulerTickInput | EventBridgeScheduledEvent;

/** The input an EventBridge Scheduler schedule sets to tick. */
export interface SchedulerTickInput {
  /** Always "tick". */
  tickq: "tick";
}

/** An EventBridge rule's own scheduled event (its other fields are not read). */
export interface EventBridgeScheduledEvent {
  /** Always "aws.events". */
  source: "aws.events";
  /** Always "Scheduled Event". */
  "detail-type": "Scheduled Event";
  /** The rule's other fields: id, time, resources… */
  [field: string]: unknown;
}

/** Whether `event` asks for a tick rather than an HTTP answer. */
export function isTickEvent(event: unknown): event is LambdaTickEvent {
  if (typeof event !== "object" || event === null) return false;
  const fields = event as Record<string, unknown>;
  return fields.tickq === "tick" || (fields.source === "aws.events" && fields["detail-type"] === "Scheduled Event");
}
