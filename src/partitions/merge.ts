// Answers of N partitions read as one: counts add up, latencies and
// timestamps take the largest, lists join. Each partition answers for its own
// keys; nothing here reads Redis.
import type { DayStats } from "../stats/history.js";
import type { QueueInfo, RecentTick, TickInfo } from "../admin/types.js";
import type { ScheduleInfo } from "../recurring/types.js";
import type { Stats } from "../stats/types.js";
import { type UnstartableJobs, unstartableWarning } from "../tick/unstartable-warnings.js";
import { nameRecord } from "../name-record.js";

type Counts = Record<string, number>;

const sum = (a: number, b: number) => a + b;

/** Two rows of fixed counters (`waiting`, `running`…), added field by field. */
function addCounts<T extends object>(a: T, b: T): T {
  const out = { ...a } as Counts;
  for (const [field, value] of Object.entries(b as Counts))
    out[field] = (Object.hasOwn(out, field) ? out[field]! : 0) + value;
  return out as T;
}

/**
 * Per-name values of every partition as one, the values of a name combined by `combine`. The names are users'
 * (queues, job and workflow names, Object.prototype members too): kept in a Map, returned by nameRecord.
 */
function mergeByName<T>(records: readonly Record<string, T>[], combine: (a: T, b: T) => T): Record<string, T> {
  const byName = new Map<string, T>();
  for (const record of records)
    for (const [name, value] of Object.entries(record)) {
      const seen = byName.get(name);
      byName.set(name, seen === undefined ? value : combine(seen, value));
    }
  return nameRecord(byName);
}

const SUMS = [
  "processed",
  "failed",
  "expired",
  "scheduled",
  "retry",
  "dead",
  "deadEvicted",
  "cancelled",
  "inflight",
  "running",
  "fetchedWaiting",
  "ticks",
  "schedules",
] as const satisfies readonly (keyof Stats)[];

export function mergeStats(all: Stats[]): Stats {
  const [first, ...rest] = all;
  const merged: Stats = {
    ...first!,
    queues: mergeByName(
      all.map((s) => s.queues),
      sum,
    ),
    latency: mergeByName(
      all.map((s) => s.latency),
      Math.max,
    ),
    paused: [...first!.paused],
    warnings: [...first!.warnings],
    ordered: mergeByName(
      all.map((s) => s.ordered),
      addCounts,
    ),
    flow: mergeByName(
      all.map((s) => s.flow),
      addCounts,
    ),
    workflows: mergeByName(
      all.map((s) => s.workflows),
      addCounts,
    ),
  };
  for (const s of rest) {
    for (const key of SUMS) merged[key] += s[key];
    merged.paused = [...new Set([...merged.paused, ...s.paused])].sort();
    merged.warnings = [...new Set([...merged.warnings, ...s.warnings])];
    merged.lastTickAt =
      merged.lastTickAt === null || s.lastTickAt === null
        ? (merged.lastTickAt ?? s.lastTickAt)
        : Math.max(merged.lastTickAt, s.lastTickAt);
  }
  return withUnstartable(merged, all);
}

/** One entry and one warning per job name and reason over all partitions: their counts add up. */
function withUnstartable(merged: Stats, all: Stats[]): Stats {
  const parts = all.flatMap((s) => s.unstartable);
  const byName = new Map<string, UnstartableJobs>();
  for (const u of parts) {
    const key = JSON.stringify([u.name, u.reason, u.queue]);
    const into = byName.get(key);
    if (!into) byName.set(key, { ...u });
    else {
      into.count += u.count;
      into.lastSeenAt = Math.max(into.lastSeenAt, u.lastSeenAt);
      if (u.budgetMs !== undefined) into.budgetMs = Math.max(into.budgetMs ?? 0, u.budgetMs);
    }
  }
  const own = new Set(parts.map(unstartableWarning));
  const unstartable = [...byName.values()];
  return {
    ...merged,
    warnings: [...merged.warnings.filter((w) => !own.has(w)), ...unstartable.map(unstartableWarning)],
    unstartable,
  };
}

export function mergeHistory(all: DayStats[][]): DayStats[] {
  return all[0]!.map((day, i) => ({
    date: day.date,
    processed: all.reduce((sum, days) => sum + (days[i]?.processed ?? 0), 0),
    failed: all.reduce((sum, days) => sum + (days[i]?.failed ?? 0), 0),
  }));
}

/** A queue is paused when it is paused in every partition (pause and resume act on all). */
export function mergeQueues(all: QueueInfo[][]): QueueInfo[] {
  const byName = new Map<string, QueueInfo>();
  for (const list of all)
    for (const q of list) {
      const into = byName.get(q.name);
      if (!into) byName.set(q.name, { ...q });
      else {
        into.size += q.size;
        into.paused &&= q.paused;
        into.latencyMs = Math.max(into.latencyMs, q.latencyMs);
        into.lastServedAt =
          into.lastServedAt === null || q.lastServedAt === null
            ? (into.lastServedAt ?? q.lastServedAt)
            : Math.max(into.lastServedAt, q.lastServedAt);
      }
    }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** A schedule lives in one partition; the partition that declares it speaks for it. */
export function mergeSchedules(all: ScheduleInfo[][]): ScheduleInfo[] {
  const byName = new Map<string, ScheduleInfo>();
  for (const list of all)
    for (const s of list) {
      const seen = byName.get(s.name);
      if (!seen || (!seen.declared && s.declared) || (seen.nextRunAt === null && s.nextRunAt !== null))
        byName.set(s.name, s);
    }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function mergeTicks(all: TickInfo[][]): TickInfo[] {
  return all.flat().sort((a, b) => a.startedAt - b.startedAt);
}

/** The last ticks of every partition, newest first, as many as one partition keeps. */
export function mergeRecentTicks(all: RecentTick[][]): RecentTick[] {
  return all
    .flat()
    .sort((a, b) => b.finishedAt - a.finishedAt)
    .slice(0, Math.max(0, ...all.map((a) => a.length)));
}

/** Prometheus text of each partition, as one: each family's HELP and TYPE once, every sample labelled with its partition. */
export function mergeExposition(texts: string[]): string {
  const families = new Map<string, { head: string[]; samples: string[] }>();
  texts.forEach((text, k) => {
    let current: { head: string[]; samples: string[] } | undefined;
    for (const line of text.split("\n")) {
      if (line === "") continue;
      const help = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (help) {
        const name = help[2]!;
        current = families.get(name);
        if (!current) families.set(name, (current = { head: [], samples: [] }));
        if (k === 0 || !current.head.some((h) => h.startsWith(`# ${help[1]} `))) current.head.push(line);
        continue;
      }
      current?.samples.push(labelled(line, k));
    }
  });
  const out: string[] = [];
  for (const { head, samples } of families.values()) out.push(...head, ...samples);
  return `${out.join("\n")}\n`;
}

function labelled(sample: string, k: number): string {
  const brace = sample.indexOf("{");
  const space = sample.indexOf(" ");
  if (brace >= 0 && brace < space) return `${sample.slice(0, brace + 1)}partition="${k}",${sample.slice(brace + 1)}`;
  return `${sample.slice(0, space)}{partition="${k}"}${sample.slice(space)}`;
}
