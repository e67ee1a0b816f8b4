// Cancels in a tick (tick/capability.ts): a step's reply names the tick's
// jobs cancelled meanwhile, heard before any job it fetched can start (a
// cancelled one never does), and acked jobs leave the process's watch,
// which knows only what is still held. Ordered runs are forgotten by their
// own part (src/ordered/in-tick.ts).
import type { Capability, TickContext } from "../tick/capability.js";
import type { Outcome } from "../tick/passes/ack.js";
import type { Runtime } from "../tick/runtime.js";

export const cancelCapability = (runtime: Runtime): Capability => ({
  name: "cancel",
  forTick(tick) {
    let ctx: TickContext | undefined;
    return {
      started: (t) => void (ctx = t),
      stepped(reply, _acked, plain) {
        if (runtime.cancels.learn(tick.tickId, reply.cancels ?? [])) void ctx?.fence.confirm();
        forget(runtime, plain);
        return undefined;
      },
      finished: (_reply, _acked, plain) => forget(runtime, plain),
    };
  },
});

function forget(runtime: Runtime, acked: Outcome[]): void {
  if (!runtime.cancels.any()) return;
  for (const o of acked) if ("payload" in o && o.payload) runtime.cancels.forget(o.payload.jid);
}
