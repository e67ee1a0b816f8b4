// The job of the waiter-death phase (bench/chaos/waiter-phase.ts), the same
// in the ticking driver and in the waiting processes: it records its start
// and its runs in the ledger (`started` set, `runs` hash by jid), runs for
// 300–900 ms so a waiter can die while it runs, records its end (`ended`
// set) and returns a value of its jid, which the judge compares.
import type { Redis } from "ioredis";

export const waiterJobs = (ledger: Redis, at: string) => ({
  slow: async ([n]: [number], ctx: { jid: string }) => {
    await ledger.hincrby(`${at}runs`, ctx.jid, 1);
    await ledger.sadd(`${at}started`, ctx.jid);
    await new Promise((resolve) => setTimeout(resolve, 300 + (n % 7) * 100));
    await ledger.sadd(`${at}ended`, ctx.jid);
    return { jid: ctx.jid, n };
  },
});
