// runWithTimeout given a run that throws before it returns (a handler or a
// plain middleware): it rejects with that error, and leaves no timer to
// abort, warn or reject later, and no listener on the tick's signal.
import { expect, it } from "vitest";
import { runWithTimeout } from "../../src/tick/passes/timeout.js";

const TIMEOUT_MS = 50;
const GRACE_MS = 20;

it("rejects with the error thrown, keeping no listener and firing no timer", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const { signal } = new AbortController();
    const listening = new Set<unknown>();
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((type: string, listener: EventListener, options?: AddEventListenerOptions) => {
      listening.add(listener);
      add(type, listener, options);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((type: string, listener: EventListener) => {
      listening.delete(listener);
      remove(type, listener);
    }) as typeof signal.removeEventListener;
    const ignored: string[] = [];
    const run = (() => {
      try {
        return runWithTimeout(
          () => {
            throw new Error("at once");
          },
          signal,
          { name: "boom", timeoutMs: TIMEOUT_MS, graceMs: GRACE_MS, onIgnored: () => void ignored.push("boom") },
        );
      } catch (thrown) {
        return { threw: thrown };
      }
    })();
    expect(run).toBeInstanceOf(Promise);
    await expect(run).rejects.toThrow("at once");
    expect(listening.size).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS + GRACE_MS + 100));
    expect(ignored).toEqual([]);
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});
