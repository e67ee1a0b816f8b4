// Key names under a prefix (DESIGN.md, "Data layout"). Scripts build the
// per-queue and per-tick keys themselves from the same prefix.
export function keysFor(prefix: string) {
  return {
    queues: `${prefix}queues`,
    schedule: `${prefix}schedule`,
    retry: `${prefix}retry`,
    dead: `${prefix}dead`,
    ticks: `${prefix}ticks`,
    lease: (tickId: string) => `${prefix}tick:${tickId}`,
    queue: (name: string) => `${prefix}queue:${name}`,
    inproc: (tickId: string, queue: string) => `${prefix}inproc:${tickId}:${queue}`,
  };
}

export type Keys = ReturnType<typeof keysFor>;
