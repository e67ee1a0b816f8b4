// A migration's pass over ordered jobs' dead entries (`o:NAME:dead`): records
// of failed runs with their payloads, which no tick runs again, so they move
// as dead jobs do: each is written into the dead set of its id's partition in
// the new layout (partition_adopt.lua, once per entry), then removed at the
// source (partition_dead_remove.lua). A run cut between the two finds the
// entry again, adopts nothing twice and removes it.
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { sha1Hex } from "../sha1.js";
import type { Runtime } from "../tick/runtime.js";
import { NOTHING_CARRIED } from "./carried.js";
import { ADOPTED_KEEP_MS } from "./move.js";
import { partitionOfOrdered } from "./route.js";

/** An ordered job's dead set in one partition: its key (`${prefix}o:NAME:dead`) and the job's name. */
export interface DeadSet {
  key: string;
  name: string;
}

export interface OrderedDeadMove {
  /** Per old partition that leaves the layout: its runtime and its dead sets. */
  sources: { runtime: Runtime; deadSets: DeadSet[] }[];
  targets: Runtime[];
  /** The set of entries a target adopted in this migration (the same as its jobs'). */
  adopted: string;
  batch: number;
}

/** Moves every dead entry of the sources into the new layout; returns how many it moved. */
export async function moveOrderedDead(move: OrderedDeadMove): Promise<number> {
  let moved = 0;
  for (const { runtime, deadSets } of move.sources) {
    for (const { key: dead, name } of deadSets) {
      for (;;) {
        const page = await runCall(runtime, protocol.partition_dead_read, { dead }, { count: move.batch });
        if (page.length === 0) break;
        let removed = 0;
        for (const { entry, score } of page) {
          const target = move.targets[partitionOfOrdered(name, idOf(entry), move.targets.length)]!;
          await runCall(
            target,
            protocol.partition_adopt,
            { adopted: `${target.prefix}${move.adopted}`, into: `${target.prefix}o:${name}:dead` },
            {
              jid: `o:${name}:dead:${await sha1Hex(entry)}`,
              score,
              job: entry,
              keepMs: ADOPTED_KEEP_MS,
              ...NOTHING_CARRIED,
            },
          );
          if (await runCall(runtime, protocol.partition_dead_remove, { dead }, { entry })) moved++, removed++;
        }
        // Every entry of the page was gone already: a tick trimmed them meanwhile, and the next page is the same.
        if (removed === 0) break;
      }
    }
  }
  return moved;
}

/** The ordered id a dead entry names (its `id`, lib/ordered/ack-ids.lua); "" when it names none. */
function idOf(entry: string): string {
  try {
    const id = (JSON.parse(entry) as { id?: unknown }).id;
    return id === undefined || id === null ? "" : String(id);
  } catch {
    return "";
  }
}
