// What a run can leave behind unseen: rejections nobody handled, and timers still pending.
import { afterEach, beforeEach } from "vitest";

/** Rejections left unhandled during each test of the calling suite (emptied before each). */
export function collectUnhandledRejections(): unknown[] {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on("unhandledRejection", onUnhandled);
  });
  afterEach(() => void process.off("unhandledRejection", onUnhandled));
  return unhandled;
}

/** Timers pending in this process now. */
export const activeTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
