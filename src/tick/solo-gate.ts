// A suspect's solo run (lib/tick/run-solo.lua) proves it poison only if nothing else
// ran when its process died, and a kill takes every tick of the process
// with it. So the gate is one per process, not per tick: a solo run starts
// once no job of any tick in the process runs, and no job starts while a
// tick waits for its solo run or has it recorded. Counting a death only when
// the dead tick's process ran nothing else would need every tick to tell
// Redis what it starts, a round trip per job; the gate costs none.

export interface SoloGate {
  /** A job of the process started. */
  started(): void;
  /** A job of the process settled (its handler's promise, even after its tick gave up on it). */
  settled(): void;
  /** `owner` waits to run a job alone: from now on no job of the process starts until it releases. */
  want(owner: object): void;
  /** Whether `owner` may record and start its solo job now: first in line, and no job of the process runs. */
  mayRunAlone(owner: object): boolean;
  /** Whether a job may start now: no tick waits for or holds a solo run. */
  mayStart(): boolean;
  /** `owner` no longer waits for, nor holds, a solo run. */
  release(owner: object): void;
  /** Calls `listener` whenever a start may have become possible; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

function newSoloGate(): SoloGate {
  let running = 0;
  const line: object[] = [];
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  return {
    started: () => void running++,
    settled() {
      running--;
      if (running === 0 && line.length > 0) notify();
    },
    want(owner) {
      if (!line.includes(owner)) line.push(owner);
    },
    mayRunAlone: (owner) => line[0] === owner && running === 0,
    mayStart: () => line.length === 0,
    release(owner) {
      const at = line.indexOf(owner);
      if (at < 0) return;
      line.splice(at, 1);
      notify();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

// On globalThis: two copies of this module in one process (two bundles, two
// versions of tickq) still die together, so they share one gate.
const KEY = Symbol.for("tickq.soloGate");
const holder = globalThis as { [KEY]?: SoloGate };

/** The process's gate. */
export function soloGate(): SoloGate {
  holder[KEY] ??= newSoloGate();
  return holder[KEY];
}
