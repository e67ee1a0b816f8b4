// Resolves `-- @include lib/AREA/NAME.lua` lines into the libraries a script
// ships, so a file names only the libraries it calls and the build finds the
// rest. A library comes after every library it includes (Lua sees a local
// function only below its definition) and ships once per script, however
// many files include it. Pure: the caller reads the files.

/** The library path an `-- @include` line names, or undefined for any other line. */
export const includeOf = (line) => /^-- @include (\S+)$/.exec(line.trim())?.[1];

/**
 * Libraries to ship for `roots`, dependencies first, leaving out those in
 * `shipped` (which it extends): call it once per include line of an entry
 * script, in the script's order, with one `shipped` set, and each library
 * lands once, before the first library or line that needs it.
 * `includesOf(file)` gives a file's `@include` paths in order, or undefined
 * when there is no such file.
 */
export function librariesFor(roots, includesOf, shipped = new Set(), from = "the entry script") {
  const order = [];
  const path = []; // the chain of includes being followed, to name a cycle
  const visit = (file, includer) => {
    if (shipped.has(file)) return;
    const at = path.indexOf(file);
    if (at >= 0) {
      const cycle = [...path.slice(at), file].join(" → ");
      throw new Error(
        `Lua include cycle: ${cycle}. A library cannot include itself through others: move what both need into a third library`,
      );
    }
    const includes = includesOf(file);
    if (includes === undefined)
      throw new Error(
        `${includer} includes ${file}, which does not exist: fix the path (relative to src/lua/) or add the file`,
      );
    path.push(file);
    for (const next of includes) visit(next, file);
    path.pop();
    shipped.add(file);
    order.push(file);
  };
  for (const root of roots) visit(root, from);
  return order;
}
