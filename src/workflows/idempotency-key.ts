// ctx.idempotencyKey: one step of one run, the same on every try. The run id
// is length-prefixed ("7:order-7:step:book"), so no two (run id, step name)
// pairs share a key however either is chosen. A run keeps the form it was
// started with (its hash's `ikey`, workflow_start.lua): step.invoke derives
// its job's jid from the key, and users deduplicate downstream on it, so a
// run started before the length prefix keeps "runId:step:name" to its end.

/** The key of `step` in run `runId` whose form is "1" (stored before the run hash had `ikey`) or "2". */
export function stepIdempotencyKey(runId: string, form: string, step: string): string {
  if (form === "1") return `${runId}:step:${step}`;
  return `${runId.length}:${runId}:step:${step}`;
}
