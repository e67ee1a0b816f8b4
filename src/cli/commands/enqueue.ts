// tickq enqueue NAME ['JSON args'] [--queue Q] [--delay MS] [--at ISO] [--jid JID] [--retry N|true|false]
//   [--priority P] [--group G] [--jobs module]
import type { Command } from "commander";
import type { EnqueueOptions, JobRegistry } from "../../index.js";
import { undeclaredJob } from "../../client/undeclared-job.js";
import { withTickq } from "../connect.js";
import { UsageError } from "../exit.js";
import { globals, intOption } from "../global.js";
import { loadJobs } from "../load-jobs.js";
import { print, printable, printJson, terminalJson } from "../output.js";

interface EnqueueCliOptions {
  queue?: string;
  delay?: string;
  at?: string;
  jid?: string;
  retry?: string;
  priority?: string;
  group?: string;
  jobs?: string;
}

function readArgs(text: string): unknown[] {
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch {
    throw new UsageError(`args must be a JSON array, e.g. '["a@b.c", 3]'; got ${text}`);
  }
  if (!Array.isArray(args)) throw new UsageError(`args must be a JSON array, e.g. '["a@b.c", 3]'; got ${text}`);
  return args;
}

/** A whole number, negative too; its range is enqueue's to check (src/order/fields.ts). */
function readPriority(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--priority must be a whole number, got ${terminalJson(value)}`);
  return Number(value);
}

function readRetry(value: string | undefined): boolean | number | undefined {
  if (value === undefined) return undefined;
  if (value === "true" || value === "false") return value === "true";
  return intOption(value, "--retry", 0);
}

export function addEnqueueCommand(program: Command): void {
  program
    .command("enqueue")
    .description("push a job (checked against --jobs when given; else any name)")
    .argument("<name>", "the job name")
    .argument("[args]", "its args as a JSON array", "[]")
    .option("--queue <queue>", "default: the job's queue, else default")
    .option("--delay <ms>", "run after this many milliseconds")
    .option("--at <date>", "run at this time (ISO 8601)")
    .option("--jid <jid>", "your own id: the same jid again within a day pushes nothing")
    .option("--retry <n>", "retries on failure: a number, true (25) or false (default: the job's definition's)")
    .option("--priority <p>", "-1000 to 1000: within its queue a higher priority starts first")
    .option("--group <group>", "its group for fair shares (a tenant's id)")
    .option("--jobs <module>", "check the name and take its defaults from this module's jobs")
    .action(async (name: string, argsText: string, options: EnqueueCliOptions, command: Command) => {
      const { prefix, json } = globals(command);
      const args = readArgs(argsText);
      const at = options.at === undefined ? undefined : new Date(options.at);
      if (at && Number.isNaN(at.getTime())) throw new UsageError(`--at must be a date, got ${options.at}`);
      // Without a module, any name goes: the CLI only writes the job, and the tick that runs it takes
      // its definition's retry (undeclaredJob writes none).
      const jobs: JobRegistry = options.jobs ? (await loadJobs(options.jobs)).jobs : { [name]: undeclaredJob() };
      const enqueueOptions: EnqueueOptions = {
        queue: options.queue,
        delayMs: intOption(options.delay, "--delay", 0),
        at,
        jid: options.jid,
        retry: readRetry(options.retry),
        priority: readPriority(options.priority),
        group: options.group,
      };
      const jid = await withTickq({ prefix, jobs }, ({ tickq }) => tickq.enqueue(name, args, enqueueOptions));
      if (json) printJson({ jid });
      else print(printable(jid));
    });
}
