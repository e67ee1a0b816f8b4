// Parks many workflow runs on one wait, fast: the runs are started through
// tq.workflows.start, then a tick of the bench's own (a lease it writes)
// claims them a thousand at a time and commits each one's park, as a tick
// that ran them to their waitForEvent would. Used by bench/workflow-events.ts
// and the chaos workflow phase, which time the event, not the parking.
import type { Redis } from "ioredis";
import type { WorkflowInputs, Tickq } from "../src/index.js";
import * as protocol from "../src/protocol/index.js";
import { encode, decode } from "../src/protocol/define.js";
import { runScript } from "../src/redis/adapter.js";
import type { JobRegistry } from "../src/job/definition.js";
import type { RedisAdapter } from "../src/redis/types.js";
import type { Commit } from "../src/workflows/execute.js";

export interface ParkOptions {
  redis: Redis;
  adapter: RedisAdapter;
  prefix: string;
  /** The workflow the runs are of; its code must reach a waitForEvent named `step` first. */
  workflow: string;
  step: string;
  event: string;
  match: string;
  runs: number;
}

/** Starts `runs` runs and parks each on (event, match); returns their ids. */
export async function parkWaits(tq: Tickq<JobRegistry, never, WorkflowInputs>, o: ParkOptions): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < o.runs; i += 500) {
    const batch = Array.from({ length: Math.min(500, o.runs - i) }, () => tq.workflows.start(o.workflow, null));
    ids.push(...(await Promise.all(batch)));
  }
  const tick = `park${Date.now().toString(36)}`;
  const lease = `${o.prefix}tick:${tick}`;
  await o.redis.hset(lease, "seq", 1);
  await o.redis.pexpire(lease, 600_000);
  const keys = { ticks: `${o.prefix}ticks`, lease };
  let call = 0;
  const send = async (claim: number, commits: Commit[]) => {
    const args = { tickId: tick, call: ++call, claim, retentionMs: 7 * 86_400_000, commits };
    const encoded = encode(protocol.workflow_tick, keys, args);
    const reply = await runScript(
      o.adapter,
      protocol.workflow_tick.script,
      encoded.keys,
      [o.prefix, ...encoded.args],
      {
        count: 0,
      },
      60_000,
    );
    return decode(protocol.workflow_tick, reply) as { claimed: { id: string; name: string; fence: string }[] };
  };
  for (let parked = 0; parked < o.runs; ) {
    const { claimed } = await send(1_000, []);
    if (claimed.length === 0) break;
    // A run of another workflow due meanwhile goes back, due at once.
    const commits: Commit[] = claimed.map((c) => ({
      id: c.id,
      fence: c.fence,
      disposition: c.name === o.workflow ? "p" : "y",
      extra: "",
      steps: [],
      parks: c.name === o.workflow ? [{ step: o.step, kind: "w", seq: 0, ms: "", event: o.event, match: o.match }] : [],
    }));
    await send(0, commits);
    parked += claimed.filter((c) => c.name === o.workflow).length;
  }
  await o.redis.del(lease);
  return ids;
}
