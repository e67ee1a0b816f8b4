// The API reference: `npm run docs:reference` writes Markdown into docs/reference/ (not
// committed), which VitePress builds with the other pages. One entry per package export,
// from the entry list (scripts/entries.mjs).
import { ENTRIES } from "./scripts/entries.mjs";

/** @type {Partial<import("typedoc").TypeDocOptions & import("typedoc-plugin-markdown").PluginOptions>} */
const config = {
  name: "API reference",
  entryPoints: ENTRIES.map((entry) => entry.source),
  tsconfig: "tsconfig.json",
  plugin: ["typedoc-plugin-markdown"],
  out: "docs/reference",
  readme: "none",
  entryFileName: "index",
  indexFormat: "table",
  membersWithOwnFile: ["Class", "Interface", "Function"],
  parametersFormat: "table",
  interfacePropertiesFormat: "table",
  classPropertiesFormat: "table",
  typeDeclarationFormat: "table",
  useCodeBlocks: true,
  hideBreadcrumbs: true,
  hidePageHeader: true,
  disableSources: true,
  sort: ["kind", "instance-first", "required-first", "alphabetical-ignoring-documents"],
  excludePrivate: true,
  excludeInternal: true,
  // A "<" in a comment would otherwise reach Vue as a tag and fail the site's build.
  sanitizeComments: true,
  // Every public export says what it is: an undocumented one fails docs:build (and CI).
  validation: { notExported: true, invalidLink: true, notDocumented: true },
  treatValidationWarningsAsErrors: true,
  // Internal types that public signatures name; their fields are documented where they are used.
  intentionallyNotExported: [
    "OrAnyArgs",
    "SchemaArgs",
    "EdgeOptions",
    "DashboardEnv",
    "JobsOf",
    "FlowsOf",
    "HandlerResult",
  ],
};

export default config;
