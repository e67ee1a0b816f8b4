// Which partition a job goes to. Every check that must see all of a key's
// jobs runs in one script, inside one partition, so a job goes where its
// exclusive key lives: its debounce key (the window), else its concurrency
// key, its rate key, its unique key (the flow locks), else its jid (the
// idempotence of a caller's jid). One job has one route: a job with both a
// concurrency and a rate key is exact for the rate only when the rate key
// follows from the concurrency key (docs/operate/cluster.md).
import { readFlowKeys } from "../job/flow-descriptor.js";
import { planFlow } from "../flow/plan.js";
import type { BulkJob } from "../job/enqueue-options.js";
import type { JobDefinition, JobRegistry } from "../job/definition.js";
import { partitionOf } from "./layout.js";

function definitionIn(jobs: JobRegistry, name: string): JobDefinition<never> | undefined {
  const entry = Object.hasOwn(jobs, name) ? jobs[name] : undefined;
  if (entry === undefined) return undefined;
  return typeof entry === "function" ? { perform: entry } : entry;
}

/**
 * The key a job is routed by, or undefined for a job with none (any partition will do: the
 * caller picks one, and that partition's jids hash to it). Bad keys throw here as enqueue would.
 */
export function routeKeyOf(jobs: JobRegistry, job: BulkJob): string | undefined {
  const definition = typeof job === "object" && job !== null ? definitionIn(jobs, job.name) : undefined;
  // An unknown job or bad args: the partition's own enqueue refuses it with its usual error.
  if (!definition || !Array.isArray(job.args)) return job?.jid;
  if (definition.debounce !== undefined) {
    try {
      return `d:${job.name}:${String(definition.debounce.key(job.args as never))}`;
    } catch {
      return undefined;
    }
  }
  const plan = safePlan(job, definition);
  const lock = plan?.locks.find(([key]) => key.startsWith("c:"))?.[0];
  if (lock) return lock;
  if (plan?.rate) return `r:${plan.rate.key}`;
  const unique = plan?.claim ?? plan?.locks.find(([key]) => key.startsWith("u:"))?.[0].slice(2);
  if (unique) return `u:${unique}`;
  return job.jid;
}

function safePlan(job: BulkJob, definition: JobDefinition<never>) {
  try {
    return planFlow(job.name, definition, job.args, job.unique);
  } catch {
    return undefined; // the partition's enqueue throws the same error, with its message
  }
}

/** The partition of a job: by its route key, or `fallback` (a rotating pick) when it has none. */
export function partitionOfJob(jobs: JobRegistry, job: BulkJob, count: number, fallback: number): number {
  if (count === 1) return 0;
  const key = routeKeyOf(jobs, job);
  return key === undefined ? fallback : partitionOf(key, count);
}

/** An ordered id's partition: its payloads merge, and it runs exclusively, in one slot. */
export function partitionOfOrdered(name: string, id: string, count: number): number {
  return partitionOf(`o:${name}:${id}`, count);
}

/** The route key of each flow key a stored job carries, in routeKeyOf's order of preference. */
const STORED_ROUTES: [tag: string, route: (key: string) => string][] = [
  ["l", (key) => key], // a concurrency key (its lock is `c:…`)
  ["r", (key) => `r:${key}`],
  ["c", (key) => `u:${key}`], // an until-executed claim
  ["u", (key) => key], // a unique lock (`u:…`)
];

/**
 * A stored job's route key, as routeKeyOf makes it from the job's definition: its debounce key
 * (stored whole at its end), else from its flow descriptor its concurrency key, else its rate
 * key, else its unique key. Undefined for a job without one (route it by its jid); null when its
 * key was too long to be stored whole, so only its definition can route it.
 */
export function routeKeyOfStored(raw: string): string | null | undefined {
  const debounced = debounceKeyOf(raw);
  if (debounced !== undefined) return `d:${debounced}`;
  const keys = readFlowKeys(raw);
  if (keys === null) return null;
  if (keys === undefined) return undefined;
  for (const [tag, route] of STORED_ROUTES) {
    const found = keys.get(tag);
    if (found) return found.whole ? route(found.key) : null;
  }
  return undefined;
}

/** The debounce key ("NAME:KEY") a debounced job's text ends with (src/lua/debounce.lua); undefined for another job. */
function debounceKeyOf(raw: string): string | undefined {
  if (!raw.endsWith('"}') || !raw.includes(',"tickq_debounce":"')) return undefined;
  try {
    const key = (JSON.parse(raw) as { tickq_debounce?: unknown }).tickq_debounce;
    return typeof key === "string" ? key : undefined;
  } catch {
    return undefined;
  }
}
