// Turns src/lua/*.lua into src/lua/index.ts (their texts), so every
// bundler sees plain TypeScript and no file is read at run time.
// `-- @include lib/AREA/NAME.lua` lines name a library a file calls: an entry
// script or a library names only what it calls itself, and the build ships
// each entry script with the whole closure, dependencies first, each library
// once (scripts/lua-includes.mjs). The generated module ships each library once,
// as a constant, and each entry script as the list of its parts (libraries
// and runs of its own lines), joined with newlines at module load: joining is deterministic, so
// the text Redis receives is exactly the text whose SHA-1 is computed here.
// Each library but an `-- @eager` one ships as a loader the script runs on
// first use, so a call pays nothing for the functions it never uses
// (scripts/lua-lazy.mjs); a library's text may then differ between scripts,
// and each distinct text ships once.
// Each part keeps its file's lines one for one, so a line of the joined
// script maps back to a file and line (LuaScript.sourceOf), and a Redis error
// names the local that the .lua file names.
// With --check it exits 1 when the generated file is not current.
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { includeOf, librariesFor } from "./lua-includes.mjs";
import { shaped } from "./lua-lazy.mjs";

const dir = fileURLToPath(new URL("../src/lua/", import.meta.url));
const target = join(dir, "index.ts");

// The shipped text blanks comment lines and indentation but keeps every line,
// so line numbers hold: the .lua files (with their KEYS/ARGV/Returns/Replays
// headers) are for readers; this text is what every bundle carries and each
// EVAL sends. A leading `#!lua flags=…` line stays: Redis reads it.
const shipped = (line, first) => {
  const text = line.trim();
  if (first && text.startsWith("#!")) return text;
  if (text === "" || text.startsWith("--")) return "";
  return text;
};

/** A file's lines, each either { include } or its shipped text ("" for a blanked line). */
function linesOf(file) {
  return readFileSync(join(dir, file), "utf8")
    .replace(/\n$/, "")
    .split("\n")
    .map((line, i) => {
      const include = includeOf(line);
      return include ? { include } : shipped(line, i === 0);
    });
}

/** A JavaScript identifier for a library path: lib/common/edit-job-text.lua → lib_common_edit_job_text. */
const constName = (file) => file.replace(/\.lua$/, "").replace(/[^A-Za-z0-9]+/g, "_");

const libraries = new Map(); // include path → { file, name, text, includes }, or undefined: no such file
function library(file) {
  if (!libraries.has(file)) {
    if (!existsSync(join(dir, file))) {
      libraries.set(file, undefined);
      return undefined;
    }
    const name = constName(file);
    const clash = [...libraries.values()].find((l) => l?.name === name);
    if (clash) throw new Error(`${file} and ${clash.file} would share the name ${name}: rename one`);
    const lines = linesOf(file);
    // A library's own include lines ship blank, like its other comments: its lines stay its own.
    const text = lines.map((line) => (typeof line === "string" ? line : "")).join("\n");
    const includes = lines.filter((line) => typeof line !== "string").map((line) => line.include);
    const eager = /@eager\b/.test(readFileSync(join(dir, file), "utf8").split("\n", 1)[0]);
    libraries.set(file, { file, name, text, includes, eager });
  }
  return libraries.get(file);
}

const includesOf = (file) => library(file)?.includes;

/**
 * An entry script as its parts: a library, or a run of its own lines with the
 * file line it starts at. An include line becomes the lines of the libraries
 * it brings that the script does not ship yet, dependencies first.
 */
function entryParts(file) {
  const parts = [];
  const shipped = new Set();
  linesOf(file).forEach((line, i) => {
    if (typeof line !== "string") {
      for (const lib of librariesFor([line.include], includesOf, shipped, file)) parts.push({ lib: library(lib) });
    } else if (parts.at(-1)?.own !== undefined) {
      parts.at(-1).own.push(line);
    } else {
      parts.push({ file, line: i + 1, own: [line] });
    }
  });
  return parts;
}

const names = readdirSync(dir)
  .filter((f) => f.endsWith(".lua"))
  .sort();
// Scripts named test_* serve tickq/testing alone: they go in `testScripts`,
// each marked pure, so a bundle that never names them (the Worker's) drops them.
const isTestScript = (file) => file.startsWith("test_");
const entryOf = (file, pure) => {
  const name = file.replace(/\.lua$/, "");
  const list = shaped(entryParts(file), file)
    .map((p) =>
      p.lib
        ? `[${JSON.stringify(p.lib.file)}, 1, ${constOf(p.lib, p.text)}]`
        : `[${JSON.stringify(p.file)}, ${p.line}, ${JSON.stringify(p.text)}]`,
    )
    .join(", ");
  return `  ${name}: ${pure ? "/* @__PURE__ */ " : ""}script(${JSON.stringify(name)}, [${list}]),`;
};
// A library's text can differ between scripts (the lazy names before it, those after it use):
// each distinct text ships once.
const constants = new Map(); // text → { name, text }
function constOf(lib, text) {
  if (!constants.has(text)) {
    const taken = [...constants.values()].filter((c) => c.lib === lib).length;
    constants.set(text, { lib, name: taken ? `${lib.name}_${taken + 1}` : lib.name, text });
  }
  return constants.get(text).name;
}
const entries = names.filter((file) => !isTestScript(file)).map((file) => entryOf(file, false));
const testEntries = names.filter(isTestScript).map((file) => entryOf(file, true));

const output = `// Generated by scripts/build-lua.mjs from src/lua/*.lua. Do not edit.
// Each library ships once; an entry script is its parts joined with
// newlines, deterministically: the text Redis caches under its SHA-1. Every
// part keeps its file's lines one for one: [file, its first line, text].
import type { LuaScript } from "../redis/types.js";

${[...constants.values()]
  .sort((a, b) => a.name.localeCompare(b.name))
  .map((l) => `const ${l.name} = ${JSON.stringify(l.text)};`)
  .join("\n")}

type Part = readonly [file: string, firstLine: number, text: string];

const script = (name: string, parts: Part[]): LuaScript => ({
  name,
  text: parts.map((part) => part[2]).join("\\n"),
  sourceOf(line: number) {
    for (const [file, first, text] of parts) {
      const count = text.split("\\n").length;
      if (line <= count) return \`src/lua/\${file}:\${first + line - 1}\`;
      line -= count;
    }
    return undefined;
  },
});

export const scripts = {
${entries.join("\n")}
} satisfies Record<string, LuaScript>;

/** The scripts of tickq/testing alone (test_*.lua). */
export const testScripts = {
${testEntries.join("\n")}
} satisfies Record<string, LuaScript>;
`;

if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(target, "utf8");
  } catch {
    /* missing counts as stale */
  }
  if (current !== output) {
    console.error("src/lua/index.ts is stale: run `npm run build:lua`");
    process.exit(1);
  }
} else {
  writeFileSync(target, output);
  console.log(`wrote ${target} (${names.length} scripts, ${libraries.size} libraries)`);
}
