// The layers of src/, lowest first, and the import rules that hold them
// (docs/internals/layout.md draws them). An import may run down a layer or
// stay in its own, never up; no file is on an import circle, nor any folder
// (two folders never import each other), type-only imports included.
// `npm run lint` runs this with --ignore-known: the imports that break a
// rule today would be listed in
// .dependency-cruiser-known-violations.json, being removed, and any new one
// fails. Regenerate that list only after removing some:
//   npx depcruise src --output-type baseline > .dependency-cruiser-known-violations.json

/** Each layer's files as one pattern on paths like src/tick/run.ts, lowest first. */
const layers = [
  {
    name: "job",
    what: "the job's fields and the terms every layer shares",
    // redis/types.ts is the adapter interface every layer names (createTickq's options take one),
    // below the adapters that implement it.
    path: "^src/(errors|names|keys|redact|sha1|options|printable|name-record|thrown|describe-error|duration)[.]ts$|^src/(job|order|telemetry)/|^src/redis/types[.]ts$",
  },
  {
    name: "storage",
    what: "the Lua scripts, their protocol, the Redis adapters",
    path: "^src/(lua|protocol)/|^src/redis/(?!types[.]ts$)",
  },
  { name: "tick", what: "the tick core", path: "^src/tick/" },
  {
    name: "capabilities",
    what: "what plugs into the tick, and the client that enqueues",
    path: "^src/(client|admin|cancel|debounce|expiry|flow|kick|metrics|ordered|recurring|results|sidekiq|stats|workflows)/",
  },
  {
    name: "composition",
    what: "createTickq and partitions",
    // types.ts is createTickq's options, composed of every capability's own; jobs-api.ts is
    // tq.jobs and tq.queues, composed of admin/, results/ and cancel/.
    path: "^src/(core|index|tickq|capabilities|runtime|types|jobs-api)[.]ts$|^src/partitions/",
  },
  {
    name: "surfaces",
    what: "the HTTP app, the dashboard, the CLI, the platforms, the test tickq",
    path: "^src/(http|dashboard|cli|platforms|testing)/",
  },
];

const any = (patterns) => patterns.map((p) => `(${p})`).join("|");
const capabilities = layers.find((l) => l.name === "capabilities").path;
const surfaces = layers.find((l) => l.name === "surfaces").path;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layers.slice(0, -1).map((layer, i) => ({
      name: `no-import-up-from-${layer.name}`,
      comment: `${layer.name} (${layer.what}) imports only its own layer and those below it`,
      severity: "error",
      from: { path: layer.path },
      to: { path: any(layers.slice(i + 1).map((l) => l.path)) },
    })),
    {
      name: "tick-imports-no-capability",
      comment: "the tick core knows capabilities only through its interface: nothing under tick/ imports one",
      severity: "error",
      from: { path: "^src/tick/" },
      to: { path: capabilities },
    },
    {
      name: "surfaces-reached-from-surfaces-only",
      comment: "http/, dashboard/, cli/ and platforms/ stand on top: nothing below them imports them",
      severity: "error",
      from: { path: "^src/", pathNot: surfaces },
      to: { path: surfaces },
    },
    {
      name: "no-folder-circle",
      comment:
        "no two folders import each other, even through others: what both need goes down to the lower one (or job/), or the higher one plugs in through an interface",
      severity: "error",
      scope: "folder",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-circular",
      comment: "no file is on an import circle, type-only imports included",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "every-file-in-a-layer",
      comment: "a new folder or root file of src/ goes into a layer here and in docs/internals/layout.md",
      severity: "error",
      from: { path: "^src/", pathNot: any(layers.map((l) => l.path)) },
      to: {},
    },
  ],
  options: {
    includeOnly: "^src/",
    doNotFollow: { path: "node_modules" },
    // Type-only imports count: a circle of types is still a circle for a reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["es6"],
  },
};
