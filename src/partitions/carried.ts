// What a job of the old layout depends on there, read before it moves
// (partition_carry_read.lua) and written with it in its new partition
// (partition_adopt.lua): the debounce window it holds open; a flow job's
// until-executed and coalesce wait claims, its rate limit's deferral and the
// starts its rate key logged in the last period. A job whose concurrency or
// unique slot a running job holds is not moved: the new layout could start
// it beside that job.
import { isFlowJob, readFlowKeys } from "../job/flow-descriptor.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { Runtime } from "../tick/runtime.js";

/** What partition_adopt.lua writes beside a job. */
export interface Carried {
  windowFirst: string;
  windowTtl: number;
  claim: boolean;
  wait: boolean;
  deferred: string;
  rate: { member: string; at: string }[];
}

/** A job that depends on nothing (a plain job, an ordered job's dead entry). */
export const NOTHING_CARRIED: Carried = {
  windowFirst: "",
  windowTtl: 0,
  claim: false,
  wait: false,
  deferred: "",
  rate: [],
};

/** The field a debounced job's text ends with (src/lua/debounce.lua). */
const DEBOUNCE_FIELD = ',"tickq_debounce":"';

/** Whether a stored job may depend on anything in its partition. */
const mayDepend = (raw: string) => isFlowJob(raw) || (raw.endsWith('"}') && raw.includes(DEBOUNCE_FIELD));

/** Reads what jobs depend on in their old partitions, carrying each rate key's log once per target. */
export class Dependencies {
  /** "source target rate-key": logs carried in this run (a run again carries them again: adding them twice adds nothing). */
  private readonly logsCarried = new Set<string>();

  /**
   * What `raw`, in `source`, carries into `target`; or the keys of its slots that running jobs
   * hold in `source`, when it must not move yet.
   */
  async read(source: Runtime, target: Runtime, raw: string): Promise<{ carried: Carried } | { held: string[] }> {
    if (!mayDepend(raw)) return { carried: NOTHING_CARRIED };
    const { held, rate, ...found } = await runCall(
      source,
      protocol.partition_carry_read,
      { locks: `${source.prefix}flow:locks` },
      { job: raw },
    );
    if (held.length > 0) return { held: held.map(decodeURIComponent) };
    // Every job of a rate key has the same log there: the first one moved carries it.
    const log = `${source.prefix}\n${target.prefix}\n${readFlowKeys(raw)?.get("r")?.key}`;
    const first = rate.length > 0 && !this.logsCarried.has(log);
    if (first) this.logsCarried.add(log);
    return {
      carried: {
        ...found,
        // Tagged with the old partition: fences of two partitions may be equal, and each start must count.
        rate: first ? rate.map(({ member, at }) => ({ member: `${source.prefix}|${member}`, at })) : [],
      },
    };
  }
}
