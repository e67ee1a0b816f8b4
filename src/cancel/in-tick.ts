// Cancels in a tick (tick/capability.ts): a step's or an extend's reply names
// the tick's jobs cancelled meanwhile, heard before any job it fetched can
// start (a cancelled one never does); the next extend tells Redis the tick
// heard them, at once if they came meanwhile (tq.jobs.cancel waits for that).
// A running plain job's ctx.signal aborts on its cancel, and acked jobs leave
// the process's watch, which knows only what is still held. Ordered runs are
// forgotten by their own part (src/ordered/in-tick.ts).
import type { Capability, JobHooks, TickContext } from "../tick/capability.js";
import type { Outcome } from "../tick/passes/ack.js";
import type { CancelRuntime } from "./runtime.js";

export const cancelCapability = (runtime: CancelRuntime): Capability => {
  const { cancels } = runtime;
  // One per runtime: a run asks the process's watch, whatever its tick.
  const job: JobHooks = {
    cancelled: (jid) => cancels.isCancelled(jid),
    signalFor: (jid, parent) => cancels.signalFor(jid, parent),
    ended: (jid) => cancels.ended(jid),
  };
  return {
    name: "cancel",
    forTick(tick) {
      let ctx: TickContext | undefined;
      // What the extend in flight confirms (extends go one at a time), put back if it fails.
      let heard: string[] = [];
      return {
        job,
        started: (t) => void (ctx = t),
        stepped(reply, _acked, plain) {
          if (cancels.learn(tick.tickId, reply.cancels ?? [])) void ctx?.fence.confirm();
          forget(runtime, plain);
          return undefined;
        },
        finished: (_reply, _acked, plain) => forget(runtime, plain),
        extendArgs() {
          heard = cancels.takeHeard(tick.tickId);
          // extend.lua reads `heard` after the progress section: with heard jids, an empty one
          // at least (results' part replaces it with what it sends).
          return heard.length === 0 ? {} : { progress: [], heard };
        },
        extended(reply) {
          if (reply) cancels.learn(tick.tickId, reply.cancels);
          else cancels.unsent(tick.tickId, heard);
        },
        extendAgain: () => cancels.hasHeard(tick.tickId),
        // The tick stopped calling Redis: what it heard is forgotten.
        stop: () => cancels.endTick(tick.tickId),
      };
    },
  };
};

function forget(runtime: CancelRuntime, acked: Outcome[]): void {
  if (!runtime.cancels.any()) return;
  for (const o of acked) if ("payload" in o && o.payload) runtime.cancels.forget(o.payload.jid);
}
