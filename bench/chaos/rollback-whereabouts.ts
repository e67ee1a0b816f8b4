// Where a unit of the rollback phase (bench/chaos/rollback-phase.ts) that
// neither completed nor is counted present stands in Redis, in words, read
// once the work settled: what the judge prints with a loss, so that a loss
// seen once can be told apart later (gone from Redis, or stranded in a key
// the phase's counts do not read). An ordered payload is looked for in its
// id's keys (lib/ordered/state.lua): its payloads, the arrivals behind a run,
// the dead set, and the id's place (ready, later, held, retries, a tick's
// token).
import type { Redis } from "ioredis";
import type { Send } from "./rollback-plan.js";

/** The ordered job name of the phase (bench/chaos/rollback-jobs.ts). */
const ORDERED = "ordered";

async function orderedPayloadWhere(admin: Redis, prefix: string, s: Extract<Send, { kind: "ordered" }>) {
  const key = (what: string) => `${prefix}o:${ORDERED}:${what}`;
  const payload = JSON.stringify({ n: s.n, ms: s.ms });
  const held: string[] = [];
  for (const inproc of await admin.keys(`${prefix}oinproc:*`)) {
    const token = await admin.hget(inproc, `${ORDERED} ${s.id}`);
    if (token !== null) held.push(`${inproc.slice(prefix.length)} → ${token}`);
  }
  const dead = (await admin.zrange(key("dead"), "0", "-1")).some((entry) => entry.includes(payload));
  const [inP, inN, ready, later, isHeld, retries, pSize, nSize] = await Promise.all([
    admin.zscore(key(`p:${s.id}`), payload),
    admin.zscore(key(`n:${s.id}`), payload),
    admin.zscore(key("ready"), s.id),
    admin.zscore(key("later"), s.id),
    admin.sismember(key("held"), s.id),
    admin.hget(key("retries"), s.id),
    admin.zcard(key(`p:${s.id}`)),
    admin.zcard(key(`n:${s.id}`)),
  ]);
  const payloadAt = [
    inP !== null && `p:${s.id} (score ${inP})`,
    inN !== null && `n:${s.id} (score ${inN})`,
    dead && "dead",
  ]
    .filter(Boolean)
    .join(", ");
  return (
    `payload ${payload} ${payloadAt ? `in ${payloadAt}` : "in no key of its id"}; ${s.id}: ` +
    `p ${pSize} payloads, n ${nSize}, ready ${ready ?? "no"}, later ${later ?? "no"}, held ${isHeld ? "yes" : "no"}, ` +
    `retries ${retries ?? "none"}, tokens ${held.join(" / ") || "none"}`
  );
}

/** Each unit of `sends` neither completed nor present: where it stands in Redis. */
export async function whereabouts(
  admin: Redis,
  prefix: string,
  sends: Send[],
  completed: Set<string>,
  present: Map<string, string>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const s of sends) {
    if (completed.has(s.unit) || present.has(s.unit)) continue;
    if (s.kind === "ordered") out.set(s.unit, await orderedPayloadWhere(admin, prefix, s));
    else if (s.kind === "run") out.set(s.unit, "no run record");
    else out.set(s.unit, "in no queue, schedule, retry, dead or in-process list");
  }
  return out;
}
