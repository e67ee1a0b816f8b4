// What a process knows of cancels (one per runtime, as jids are unique): the
// jobs its ticks heard were cancelled (from a step's or extend's reply), the
// running handlers' abort controllers, and per tick the jids it has yet to
// tell Redis it heard (the extend that follows carries them), so that
// tq.jobs.cancel returns only once the tick will never start the job.
import { TickqCancelled } from "./errors.js";

export class CancelWatch {
  /** Jids heard cancelled, until their ack (forget). */
  private readonly cancelled = new Set<string>();
  /** Running handlers, by jid. */
  private readonly running = new Map<string, { controller: AbortController; stop(): void }>();
  /** Per tick, jids heard and not yet confirmed to Redis. */
  private readonly unconfirmed = new Map<string, Set<string>>();
  /** Per tick, what it heard: forgotten when it ends (a run's mark may be heard after its execution ended). */
  private readonly heardBy = new Map<string, Set<string>>();

  /** The tick heard of these cancels: their handlers abort, and the jobs never start. True if any was new. */
  learn(tickId: string, jids: readonly string[]): boolean {
    if (jids.length === 0) return false;
    let pending = this.unconfirmed.get(tickId);
    if (!pending) this.unconfirmed.set(tickId, (pending = new Set()));
    let heard = this.heardBy.get(tickId);
    if (!heard) this.heardBy.set(tickId, (heard = new Set()));
    for (const jid of jids) {
      pending.add(jid);
      heard.add(jid);
      this.cancelled.add(jid);
      this.running.get(jid)?.controller.abort(new TickqCancelled(jid));
    }
    return true;
  }

  /** Whether any cancel is known at all (the common case: none, and nothing to look up). */
  any(): boolean {
    return this.cancelled.size > 0;
  }

  isCancelled(jid: string): boolean {
    return this.cancelled.size !== 0 && this.cancelled.has(jid);
  }

  /**
   * A signal for the job's run, made when its handler first reads ctx.signal (a handler that never
   * does costs nothing): aborts with `parent` (deadline, lost lease) or with a TickqCancelled.
   */
  signalFor(jid: string, parent: AbortSignal): AbortSignal {
    const controller = new AbortController();
    const follow = () => controller.abort(parent.reason);
    if (this.cancelled.has(jid)) controller.abort(new TickqCancelled(jid));
    else if (parent.aborted) follow();
    else parent.addEventListener("abort", follow, { once: true });
    this.running.set(jid, { controller, stop: () => parent.removeEventListener("abort", follow) });
    return controller.signal;
  }

  /**
   * A signal for a run that only its cancel aborts (a workflow run's: the deadline and a lost lease reach its
   * steps through the tick's own signal): no parent to follow, nothing to stop at its end.
   */
  cancelSignal(jid: string): AbortSignal {
    const controller = new AbortController();
    if (this.cancelled.has(jid)) controller.abort(new TickqCancelled(jid));
    this.running.set(jid, { controller, stop: nothingToStop });
    return controller.signal;
  }

  /** The job's run ended. */
  ended(jid: string): void {
    const run = this.running.get(jid);
    if (!run) return;
    run.stop();
    this.running.delete(jid);
  }

  /** The job was acked: nothing more to know of it. */
  forget(jid: string): void {
    if (this.cancelled.size > 0) this.cancelled.delete(jid);
  }

  /** The jids the tick's next extend confirms; put back with `unsent` if that call fails. */
  takeHeard(tickId: string): string[] {
    const pending = this.unconfirmed.get(tickId);
    if (!pending) return [];
    this.unconfirmed.delete(tickId);
    return [...pending];
  }

  unsent(tickId: string, jids: readonly string[]): void {
    if (jids.length > 0) this.learn(tickId, jids);
  }

  hasHeard(tickId: string): boolean {
    return this.unconfirmed.has(tickId);
  }

  /** The tick stopped calling Redis: what it heard is forgotten, as its work is settled or left to the resurrector. */
  endTick(tickId: string): void {
    this.unconfirmed.delete(tickId);
    for (const jid of this.heardBy.get(tickId) ?? []) this.cancelled.delete(jid);
    this.heardBy.delete(tickId);
  }
}

const nothingToStop = () => {};
