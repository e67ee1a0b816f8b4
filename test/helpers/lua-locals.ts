// The named ARGV locals an entry script opens with, against its declaration
// (src/protocol): a value part is `local <name> = … ARGV[<n>] …`, a group
// of values its fields one by one, and any part of variable length (a
// counted section, a group holding one, an optional group) `local <name>At
// = …`, the index where the part starts, for the library that reads it.
import type { ArgSpec, Call } from "../../src/protocol/define.js";

/** One local the declaration asks for; `index`: its ARGV index when every part before it has a fixed length. */
export interface ArgvLocal {
  name: string;
  index?: number;
}

const isValue = (spec: ArgSpec) => spec.kind === "text" || spec.kind === "number" || spec.kind === "flag";
const isValues = (spec: ArgSpec): boolean =>
  isValue(spec) || (spec.kind === "group" && Object.values(spec.fields).every(isValues));

/** The locals, in order; ARGV[1] is the prefix, so parts start at 2. */
export function argvLocalsOf(call: Call): ArgvLocal[] {
  const out: ArgvLocal[] = [];
  let index: number | undefined = 2;
  const visit = (name: string, spec: ArgSpec) => {
    if (isValue(spec) || (spec.kind === "optional" && isValue(spec.item))) {
      out.push({ name, index });
      index = spec.kind === "optional" || index === undefined ? undefined : index + 1;
    } else if (spec.kind === "group" && isValues(spec)) {
      for (const [field, s] of Object.entries(spec.fields)) visit(field, s);
    } else {
      out.push({ name: `${name}At`, index });
      index = undefined;
    }
  };
  for (const [name, spec] of Object.entries(call.args)) visit(name, spec);
  return out;
}

// `local name = rhs` at the start of a line: an ARGV local when rhs reads ARGV or the name ends in At.
const LOCAL = /^local ([A-Za-z_]\w*) = (.*)$/;

/** What differs between the script's ARGV locals and the declaration's; empty when they agree. */
export function localsMismatches(lua: string, wanted: ArgvLocal[]): string[] {
  const lines = lua.split("\n");
  const found = lines
    .map((line, i) => ({ m: LOCAL.exec(line), i }))
    .filter(({ m }) => m && (m[2]!.includes("ARGV[") || /At$/.test(m[1]!)))
    .map(({ m, i }) => ({ name: m![1]!, rhs: m![2]!, line: i }));
  const out: string[] = [];
  const names = found.map((f) => f.name);
  const wantedNames = wanted.map((w) => w.name);
  if (names.join(" ") !== wantedNames.join(" "))
    out.push(`ARGV locals are [${names.join(" ")}], the declaration's [${wantedNames.join(" ")}]`);
  wanted.forEach((w, k) => {
    const rhs = found[k]?.name === w.name ? found[k]!.rhs : undefined;
    if (rhs === undefined || w.index === undefined) return;
    const at = w.name.endsWith("At") && !rhs.includes("ARGV[") ? new RegExp(`\\b${w.index}\\b`) : undefined;
    if (at ? !at.test(rhs) : !rhs.includes(`ARGV[${w.index}]`))
      out.push(`${w.name} should read ARGV[${w.index}], reads: ${rhs}`);
  });
  // Past the named locals, ARGV is read only at an index counted from one of them.
  const own = new Set(found.map((f) => f.line));
  lines.forEach((line, i) => {
    if (own.has(i) || line.startsWith("--")) return;
    const literal = /ARGV\[\d+\]/.exec(line);
    if (literal) out.push(`line ${i + 1} reads ${literal[0]} by number: ${line.trim()}`);
  });
  return out;
}
