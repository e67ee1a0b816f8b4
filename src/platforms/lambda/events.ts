// The scheduled events that make a Lambda invocation tick: the input an EventBridge Scheduler schedule
// sets (tickq documents `{ "tickq": "tick" }`), or an EventBridge rule's own `Scheduled Event`.

/** A scheduled event that ticks. */
export type LambdaTickEvent =
  | { tickq: "tick" }
  | { source: "aws.events"; "detail-type": "Scheduled Event"; [field: string]: unknown };

/** Whether `event` asks for a tick rather than an HTTP answer. */
export function isTickEvent(event: unknown): event is LambdaTickEvent {
  if (typeof event !== "object" || event === null) return false;
  const fields = event as Record<string, unknown>;
  return fields.tickq === "tick" || (fields.source === "aws.events" && fields["detail-type"] === "Scheduled Event");
}
