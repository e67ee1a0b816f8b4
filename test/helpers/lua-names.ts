// Which Lua libraries a file uses, read from the names in its code: a
// library's top-level names (`local function now_ms`, `local P`, the members
// it adds to a shared table such as `function order.push`) against the names
// a file uses and does not declare itself. A plain reading, not a parser: it
// is exact for this house's style (top-level definitions start their line).

/** Lua code with comments and string literals blanked out, lines kept. */
export function codeOf(lua: string): string {
  let out = "";
  let i = 0;
  while (i < lua.length) {
    const c = lua[i]!;
    if (c === "-" && lua[i + 1] === "-") {
      const long = /^--\[(=*)\[/.exec(lua.slice(i, i + 8));
      const end = long ? lua.indexOf(`]${long[1]}]`, i) : lua.indexOf("\n", i);
      const stop = end < 0 ? lua.length : long ? end + long[1]!.length + 2 : end;
      out += lua.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < lua.length && lua[j] !== c && lua[j] !== "\n") j += lua[j] === "\\" ? 2 : 1;
      out += `${c}${" ".repeat(Math.max(0, j - i - 1))}${c}`;
      i = j + 1;
    } else if (c === "[" && /^\[=*\[/.test(lua.slice(i, i + 8))) {
      const eq = /^\[(=*)\[/.exec(lua.slice(i))![1]!;
      const end = lua.indexOf(`]${eq}]`, i);
      const stop = end < 0 ? lua.length : end + eq.length + 2;
      out += lua.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The names a library defines at its top level: locals, and members of a shared table as `table.member`. */
export function definedNames(lua: string): string[] {
  const code = codeOf(lua);
  const names: string[] = [];
  for (const m of code.matchAll(/^local function (\w+)/gm)) names.push(m[1]!);
  for (const m of code.matchAll(/^local (?!function\b)([\w ,]+?)\s*(?:=|$)/gm))
    names.push(...m[1]!.split(",").map((n) => n.trim()));
  for (const m of code.matchAll(/^(?:function (\w+)\.(\w+)|(\w+)\.(\w+)\s*=)/gm))
    names.push(`${m[1] ?? m[3]}.${m[2] ?? m[4]}`);
  return names;
}

/** The names a file declares anywhere: locals, function parameters, loop variables. */
function declaredNames(code: string): Set<string> {
  const names = new Set<string>();
  const add = (list: string) => {
    for (const n of list.split(",")) if (/^\w+$/.test(n.trim())) names.add(n.trim());
  };
  for (const m of code.matchAll(/\blocal function (\w+)/g)) names.add(m[1]!);
  for (const m of code.matchAll(/\blocal (?!function\b)([\w ,]+)/g)) add(m[1]!);
  for (const m of code.matchAll(/\bfunction\s*[\w.:]*\s*\(([^)]*)\)/g)) add(m[1]!);
  for (const m of code.matchAll(/\bfor ([\w ,]+?)\s*(?:=|\bin\b)/g)) add(m[1]!);
  return names;
}

/** The names of `known` that a file uses without declaring them: plain names and `table.member`s. */
export function usedNames(lua: string, known: ReadonlySet<string>): Set<string> {
  const code = codeOf(lua);
  const own = new Set([...declaredNames(code), ...definedNames(lua)]);
  const used = new Set<string>();
  for (const m of code.matchAll(/(?<![.:\w])([A-Za-z_]\w*)(?:\.(\w+))?/g)) {
    const [name, member] = [m[1]!, m[2]];
    const qualified = `${name}.${member}`;
    if (member !== undefined && known.has(qualified) && !own.has(qualified)) used.add(qualified);
    if (known.has(name) && !own.has(name)) used.add(name);
  }
  return used;
}
