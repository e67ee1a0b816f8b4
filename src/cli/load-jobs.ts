// `--jobs ./jobs.js` (or ./jobs.ts, loaded through the project's tsx): the
// module that registers the job handlers, for the commands that run or check
// jobs (tick, serve, enqueue). It exports them
// as `jobs` (or as its default export), and may export `queues`,
// `schedules` (recurring jobs), `ordered` (ordered jobs by id) and
// `workflows` (durable workflows) too:
//   export const jobs = { sendEmail: async ([to]) => { … } };
//   export const queues = ["critical", "default"];
//   export const schedules = { nightly: { cron: "0 3 * * *", job: "sendEmail", args: ["ops@x.y"] } };
//   export const workflows = { onboard: { run: async (input, step) => { … } } };
import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { JobRegistry, OrderedRegistry, QueueOrder, Schedules, WorkflowsOption } from "../index.js";
import { UsageError } from "./exit.js";

export interface LoadedJobs {
  jobs: JobRegistry;
  queues?: QueueOrder;
  schedules?: Schedules;
  ordered?: OrderedRegistry;
  workflows?: WorkflowsOption<Record<string, unknown>>;
}

const isRegistry = (value: unknown): value is JobRegistry =>
  typeof value === "object" &&
  value !== null &&
  Object.values(value).every(
    (v) =>
      typeof v === "function" ||
      (typeof v === "object" && v !== null && typeof (v as { perform?: unknown }).perform === "function"),
  );

const TYPESCRIPT = /\.[cm]?tsx?$/;

interface TsxManifest {
  exports: Record<string, { import?: { default?: string } } | undefined>;
}

interface TsxApi {
  tsImport(specifier: string, parent: string): Promise<unknown>;
}

// tsx's documented import API, from the project the CLI runs in (else tickq's own): the Node this runs on
// may not import TypeScript itself (Node 20 cannot), and a TypeScript library's jobs are a .ts module.
async function tsxApi(): Promise<TsxApi | undefined> {
  for (const from of [join(process.cwd(), "package.json"), import.meta.url]) {
    try {
      // Its ESM entry, as its exports map names it: require.resolve would give the CommonJS one.
      const manifest = createRequire(from).resolve("tsx/package.json");
      const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as TsxManifest;
      const entry = exports["./esm/api"]?.import?.default ?? "./dist/esm/api/index.mjs";
      const api = (await import(pathToFileURL(join(dirname(manifest), entry)).href)) as Partial<TsxApi>;
      if (typeof api.tsImport === "function") return api as TsxApi;
    } catch {
      // not installed there: try the next place
    }
  }
  return undefined;
}

// `version` above 0 imports the module afresh (tickq dev's reload): a query for Node's loader; tsx
// imports into a new namespace on every call anyway.
async function importJobs(path: string, version: number): Promise<Record<string, unknown>> {
  const url = pathToFileURL(resolve(path)).href;
  try {
    return (await import(version > 0 ? `${url}?v=${version}` : url)) as Record<string, unknown>;
  } catch (error) {
    if (!TYPESCRIPT.test(path)) throw error;
    const tsx = await tsxApi();
    if (!tsx) {
      throw new UsageError(
        `--jobs ${path}: this Node (${process.version}) cannot import TypeScript; install tsx in the project (npm i -D tsx) and tickq loads it through tsx, or give the compiled .js`,
      );
    }
    return (await tsx.tsImport(url, import.meta.url)) as Record<string, unknown>;
  }
}

// tickq's exports map has `import` entries only, so a module loaded as CommonJS (a .ts or .js file in a
// package without "type": "module", as `npm init` writes it) fails to require tickq with this code.
const notExported = (error: unknown): boolean => (error as { code?: unknown }).code === "ERR_PACKAGE_PATH_NOT_EXPORTED";

export async function loadJobs(path: string, version = 0): Promise<LoadedJobs> {
  // Said before importing: Node's own error names tickq's bundled chunk as the importer.
  if (!existsSync(resolve(path))) {
    throw new UsageError(`--jobs ${path}: cannot import it: no file at ${resolve(path)}`);
  }
  let module: Record<string, unknown>;
  try {
    module = await importJobs(path, version);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const fix = notExported(error)
      ? 'tickq is ES modules only: if the module is CommonJS (a .ts or .js file in a package without "type": "module"), set "type": "module" in package.json or name it .mts (.mjs)'
      : "Give a JavaScript or TypeScript module";
    throw new UsageError(`--jobs ${path}: cannot import it (${(error as Error).message}). ${fix}.`);
  }
  const jobs = module.jobs ?? module.default;
  if (!isRegistry(jobs)) {
    throw new UsageError(
      `--jobs ${path}: export \`jobs\` (or a default export): an object of job name → handler, or → { perform, queue?, retry? }`,
    );
  }
  // createTickq checks both and names what is wrong.
  return {
    jobs,
    queues: module.queues as QueueOrder | undefined,
    schedules: module.schedules as Schedules | undefined,
    ordered: module.ordered as OrderedRegistry | undefined,
    workflows: module.workflows as LoadedJobs["workflows"],
  };
}
