// The results a run's claim left in Redis (lib/workflows/carry-steps.lua),
// read when its replay reaches them: the step reached and the next ones
// left, in step order, up to READ_BYTES a read, one read at a time. So an
// execution reads the results it passes, and neither a reply nor Redis'
// output buffer holds more than READ_BYTES of the run's results at once.
import type { StepRecord } from "./records.js";

/** Bytes of stored records one read asks for (one record larger than this is read alone). */
export const READ_BYTES = 1024 * 1024;

/** Reads stored records by step name; undefined once the run is no longer this execution's. */
export type ReadRecords = (names: string[]) => Promise<string[] | undefined>;

export interface LeftResults {
  /** True while the step's result is still in Redis only. */
  has(name: string): boolean;
  /**
   * Reads the step's record into `records` (with the next ones left); its record, or undefined once the run
   * is no longer this execution's. Rejects when the read fails.
   */
  load(name: string): Promise<StepRecord | undefined>;
  /** While reads are under way: settles once the last one asked for is answered (never rejects). */
  reading(): Promise<unknown> | undefined;
}

/** `records`: the run's records by step name, where each record read replaces its claim's. */
export function leftResults(
  records: Map<string, StepRecord>,
  left: Map<string, number>,
  read: ReadRecords,
): LeftResults {
  // Step order, as the claim listed them: a read goes on with the steps the replay reaches next.
  const order = [...left.keys()];
  const reading = new Map<string, Promise<true | undefined>>();
  let queue: Promise<unknown> = Promise.resolve();

  /** The names one read asks for: `name`, then the next ones left and not being read, up to READ_BYTES. */
  const batchFrom = (name: string) => {
    const names = [name];
    let bytes = left.get(name) ?? 0;
    for (let k = order.indexOf(name) + 1; k < order.length; k++) {
      const next = order[k]!;
      if (!left.has(next) || reading.has(next)) continue;
      const size = left.get(next)!;
      if (bytes + size > READ_BYTES) break;
      names.push(next);
      bytes += size;
    }
    return names;
  };

  const readBatch = (names: string[]) => {
    // One read at a time: the next starts once the one before it is answered.
    const answered = queue.then(async () => {
      const texts = await read(names);
      if (texts === undefined) return undefined;
      const full = names.map((name, k) => {
        const record = texts[k] ? (JSON.parse(texts[k]) as StepRecord) : undefined;
        if (record?.status !== "completed") {
          throw new Error(
            `step "${name}" has no completed record in Redis any more: the run changed under this execution`,
          );
        }
        return record;
      });
      names.forEach((name, k) => {
        records.set(name, full[k]!);
        left.delete(name);
      });
      return true;
    });
    queue = answered.catch(() => {});
    for (const name of names) reading.set(name, answered);
    void answered
      .finally(() => {
        for (const name of names) reading.delete(name);
      })
      .catch(() => {});
    return answered;
  };

  return {
    has: (name) => left.has(name),
    reading: () => (reading.size > 0 ? queue : undefined),
    async load(name) {
      if (left.has(name) && (await (reading.get(name) ?? readBatch(batchFrom(name)))) === undefined) return undefined;
      return records.get(name);
    },
  };
}
