// The state of the phase's flow keys on the faulted Redis, read directly
// (a diagnostic of the harness, not the jobs API): who holds each slot,
// whether the holder's tick lease lives, how old the hold is (a fence is
// Redis' time in µs when it was handed out, lib/common/prefix-keys.lua),
// whether the job is still in that tick's inproc list, and the key's
// parked and queued jobs. It tells a slot that leaked (a holder whose tick
// is gone, or parked jobs and a free slot) from a key that is only slow
// (live holders, young holds, the parked count falling).
//   flowKeyStates  one line per concurrency key, for the settle problem
//   traceFlow      those lines once a second while the phase settles,
//                  into the file CHAOS_FLOW_TRACE names (unset: nothing)
//   slotsHeld      slots still held: once the work ran out, each is a leak
import { appendFileSync } from "node:fs";
import type { Redis } from "ioredis";

export async function flowKeyStates(admin: Redis, prefix: string): Promise<string[]> {
  const keys = new Set([
    ...(await admin.keys(`${prefix}flow:held:*`)).map((k) => k.slice(`${prefix}flow:held:`.length)),
    ...(await admin.keys(`${prefix}flow:park:c:*`)).map((k) => k.slice(`${prefix}flow:park:`.length)),
  ]);
  const queues = await admin.keys(`${prefix}queue:*`);
  const lines: string[] = [];
  for (const key of keys) {
    const holders: string[] = [];
    for (const [field, fence] of Object.entries(await admin.hgetall(`${prefix}flow:held:${key}`))) {
      const [tick = "", jid = ""] = field.split(" ");
      const lease = await admin.pttl(`${prefix}tick:${tick}`);
      let inproc = 0;
      for (const list of await admin.keys(`${prefix}inproc:${tick}:*`))
        for (const job of await admin.lrange(list, 0, -1)) if (job.includes(`|${jid}"`)) inproc++;
      const age = Date.now() - Math.floor(Number(fence) / 1000);
      holders.push(
        `${tick.slice(0, 8)} ${jid} held ${age} ms, lease ${lease < 0 ? "gone" : `${lease} ms`}, in inproc ${inproc}`,
      );
    }
    let queued = 0;
    for (const q of queues) for (const job of await admin.lrange(q, 0, -1)) if (job.includes(`|${key}|`)) queued++;
    const parked = await admin.llen(`${prefix}flow:park:${key}`);
    lines.push(`${key}: holders [${holders.join("; ")}], parked ${parked}, queued ${queued}`);
  }
  return lines;
}

export interface FlowTrace {
  stop(): Promise<void>;
}

export function traceFlow(admin: Redis, prefix: string, file: string | undefined, label: string): FlowTrace {
  if (!file) return { stop: async () => {} };
  const started = Date.now();
  let running = true;
  const write = (line: string) => appendFileSync(file, `${line}\n`);
  write(`# ${label} ${new Date().toISOString()} prefix ${prefix}`);
  const loop = (async () => {
    while (running) {
      const at = ((Date.now() - started) / 1000).toFixed(1);
      await flowKeyStates(admin, prefix)
        .then((lines) => {
          for (const line of lines) write(`${at} s ${line}`);
        })
        .catch((error: unknown) => write(`${at} s ! ${(error as Error).message}`));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

export async function slotsHeld(admin: Redis, prefix: string): Promise<string[]> {
  const held: string[] = [];
  for (const hash of await admin.keys(`${prefix}flow:held:*`))
    for (const field of await admin.hkeys(hash)) held.push(`${hash.slice(prefix.length)}: ${field}`);
  for (const owner of await admin.keys(`${prefix}flow:owner:*`))
    held.push(`${owner.slice(prefix.length)}: ${await admin.get(owner)}`);
  return held;
}
