// Recurring jobs in a tick (tick/capability.ts): begin asks which schedules
// are due (its recurring section); only then does the tick send the one
// recurring call (pass.ts), which also fetches what begin's batch left room for.
import type { RecurringRuntime } from "./runtime.js";
import type { Capability } from "../tick/capability.js";
import { noteExpired } from "../expiry/in-tick.js";
import { recurringDueArgs, runRecurring } from "./pass.js";

export const recurringCapability = (runtime: RecurringRuntime): Capability => ({
  name: "recurring",
  forTick(tick) {
    let more = false;
    let enqueued = 0;
    return {
      beginArgs: (t) => ({ recurring: recurringDueArgs(runtime.recurring, t.scheduleLimit) }),
      async begun(reply, t, room) {
        const due = await runRecurring(runtime, t.calls, {
          tickId: tick.tickId,
          due: reply.due,
          nowMs: reply.nowMs,
          room,
        });
        t.report.recurring += due.enqueued;
        enqueued = due.enqueued;
        noteExpired(t, due.expired);
        if (!due.held) t.lost();
        more = due.more;
        return due.fetched;
      },
      madeDue: () => enqueued > 0,
      more: () => more,
    };
  },
});
