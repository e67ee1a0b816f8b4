// Kick on enqueue: right after an enqueue, a tick runs in the background of
// the same invocation (the scope's waitUntil: ctx.waitUntil on Workers,
// Vercel's waitUntil; in-process on Node), so a job starts within
// milliseconds instead of at the next cron, and the response waits for
// none of it. A burst of enqueues does not start a tick each: kick.lua lets
// at most `max` kicked ticks run at once per prefix, and a kick it refuses
// is written down, so a holder whose tick drained ticks again for it.
//
// A kick ticks while work remains and its budget lasts; when the scope can
// fan out (onMore), a tick that ends with work left hands the rest to fresh
// invocations instead. Nothing here can fail an enqueue: a kick that goes
// wrong is logged, and the cron still finds the job.
import { monotonicMs } from "../tick/clock.js";
import { newJid } from "../job/codec.js";
import { MAX_TIMER_MS, numberOption } from "../options.js";
import type { RoundTrips } from "../redis/adapter.js";
import { redisNowMs, type Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { callPatienceMs, sendResent } from "../tick/calls.js";
import type { EnqueueOptions } from "../job/enqueue-options.js";
import type { TickOptions } from "../tick/options.js";
import { startTick } from "./parallel.js";
import type { KickOptions, KickScope } from "./types.js";

/** Below this much of the kick's budget left, another tick would be mostly overhead. */
const MIN_TICK_MS = 200;
/** A holder calls kick.lua at least once per tick: its budget, its grace, and a margin. */
const TTL_MARGIN_MS = 5_000;

export interface KickSettings {
  max: number;
  budgetMs: number;
  tick: TickOptions;
}

export function kickSettings(options: KickOptions = {}): KickSettings {
  return {
    max: numberOption(options.max, 2, "kick.max", { min: 1, integer: true }),
    budgetMs: numberOption(options.budgetMs, 10_000, "kick.budgetMs", { min: 1, max: MAX_TIMER_MS }),
    tick: options.tick ?? {},
  };
}

/** Kicks when some job asked to (or the scope does by default) and runs now rather than later. */
export function kickIfAsked(runtime: Runtime, settings: KickSettings, scope: KickScope, jobs: EnqueueOptions[]): void {
  const now = redisNowMs(runtime);
  const asked = jobs.some(
    (j) => (j.kick ?? scope.kick) === true && !(j.delayMs! > 0) && !(j.at && j.at.getTime() > now),
  );
  if (asked) kick(runtime, settings, scope);
}

/** Starts a kick in the scope's waitUntil, or in-process; never throws. */
export function kick(runtime: Runtime, settings: KickSettings, scope: KickScope): void {
  const run = runKick(runtime, settings, scope).catch((error: unknown) => {
    runtime.logger.warn(
      `tickq: a kicked tick failed (the next tick will find its jobs): ${(error as Error)?.message ?? String(error)}`,
    );
  });
  scope.waitUntil?.(run);
}

async function runKick(runtime: Runtime, settings: KickSettings, scope: KickScope): Promise<void> {
  const tickBudget = Math.min(settings.tick.budgetMs ?? settings.budgetMs, settings.budgetMs);
  const ttl = Math.ceil(tickBudget + (settings.tick.graceMs ?? 1_000) + TTL_MARGIN_MS);
  const trips: RoundTrips = { count: 0 };
  // A call whose reply was lost is sent again: kick.lua answers a replay as it answered the first run.
  const call = (op: string, token: string, arg: string | number) =>
    sendResent(
      runtime,
      protocol.kick,
      { kicks: `${runtime.prefix}kicks`, waiting: `${runtime.prefix}kicks:waiting` },
      { op, token, arg: String(arg), ttlMs: ttl },
      trips,
      callPatienceMs(runtime),
    );

  // A backlog found by a kicked tick fans out at once, kept alive like the kick.
  const { onMore } = scope;
  const spread = onMore
    ? () => {
        const fanning = onMore().catch(() => {});
        scope.waitUntil?.(fanning);
      }
    : undefined;
  let token = newJid();
  if ((await call("take", token, settings.max)) !== 1) return;
  let holding = true;
  const deadline = monotonicMs() + settings.budgetMs;
  try {
    for (;;) {
      const left = deadline - monotonicMs();
      const report = await startTick(runtime, {
        ...settings.tick,
        budgetMs: Math.min(tickBudget, left),
        onBacklog: spread,
      });
      if (report.skipped) break; // maxParallel ticks are live: they carry on
      const outOfTime = deadline - monotonicMs() < MIN_TICK_MS;
      if (report.more) {
        if (scope.onMore || outOfTime) {
          await scope.onMore?.();
          break;
        }
        continue;
      }
      // Drained: tick again only if a kick was refused meanwhile (done), else release.
      const next = newJid();
      holding = (await call("done", token, next)) === 1;
      if (!holding) break;
      token = next;
      if (outOfTime) {
        await scope.onMore?.();
        break;
      }
    }
  } finally {
    if (holding) await call("free", token, 0);
  }
}
