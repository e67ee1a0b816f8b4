// Expiry in a tick (tick/capability.ts): every fetch may record jobs past
// their expiry as expired instead of handing them out; the tick counts them
// and fires an `expired` event each.
import type { Capability, TickContext } from "../tick/capability.js";

export const expiryCapability = (): Capability => ({
  name: "expiry",
  forTick() {
    let ctx: TickContext | undefined;
    return {
      started: (t) => void (ctx = t),
      begun(reply, t) {
        noteExpired(t, reply.expired);
        return undefined;
      },
      stepped(reply) {
        noteExpired(ctx!, reply.expired);
        return undefined;
      },
    };
  },
});

/** Jobs a fetch recorded as expired: counted, and an `expired` event each. */
export function noteExpired(t: Pick<TickContext, "report" | "events">, texts: string[] | undefined): void {
  if (!texts) return;
  t.report.expired += texts.length;
  t.events.expired(texts);
}
