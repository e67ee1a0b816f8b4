// Makes a library's functions cost nothing on a call that does not use them.
// Redis runs an entry script's whole body on every EVALSHA, so each library's
// `local function` and table of functions was made again on every call, and
// each closure made in the script's main function finds every local it
// captures by walking all the main function's captured locals (Lua 5.1's
// luaF_findupval): with a few hundred library locals, about a third of an
// empty tick's Redis instructions (issue 46). A lazy library ships as its loader,
// `function libs.load_NAME() … end`, around its own lines: the names later
// parts use are fields of the one table `libs` (its own functions keep their
// locals and the loader copies them into `libs` at its end), and each later
// use reads `(libs.name or libs.load_NAME() or libs.name)`, or, where it
// starts a statement, `if not libs.name then libs.load_NAME() end libs.name`.
// A loader runs once a call: it first replaces itself with a no-op. Lines
// stay one for one (LuaScript.sourceOf). A library whose first line holds
// `-- @eager` ships as written: one every tick calls anyway, where a loader
// would only add its own cost (docs/internals/lua-libraries.md).

const KEYWORDS = new Set(
  "and break do else elseif end false for function if in local nil not or repeat return then true until while".split(
    " ",
  ),
);

/** Lua tokens of `text`: { t: 'name'|'kw'|'num'|'str'|'op', v, s (start), e (end) }; comments skipped. */
export function tokens(text) {
  const out = [];
  let i = 0;
  const longBracket = (at) => /^\[(=*)\[/.exec(text.slice(at, at + 100));
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
    } else if (text.startsWith("--", i)) {
      const long = longBracket(i + 2);
      if (long) {
        const close = text.indexOf(`]${long[1]}]`, i);
        i = close < 0 ? text.length : close + long[1].length + 2;
      } else {
        const eol = text.indexOf("\n", i);
        i = eol < 0 ? text.length : eol;
      }
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1;
      out.push({ t: "str", v: text.slice(i, j + 1), s: i, e: j + 1 });
      i = j + 1;
    } else if (c === "[" && longBracket(i)) {
      const long = longBracket(i);
      const close = text.indexOf(`]${long[1]}]`, i);
      const e = close + long[1].length + 2;
      out.push({ t: "str", v: text.slice(i, e), s: i, e });
      i = e;
    } else if (/[A-Za-z_]/.test(c)) {
      const v = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))[0];
      out.push({ t: KEYWORDS.has(v) ? "kw" : "name", v, s: i, e: i + v.length });
      i += v.length;
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(text[i + 1] ?? ""))) {
      const v = /^(0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?\.?)/.exec(text.slice(i))[0];
      out.push({ t: "num", v, s: i, e: i + v.length });
      i += v.length;
    } else {
      const v = /^(\.\.\.|\.\.|==|~=|<=|>=)/.exec(text.slice(i))?.[0] ?? c;
      out.push({ t: "op", v, s: i, e: i + v.length });
      i += v.length;
    }
  }
  return out;
}

// A token after which a name begins a new statement: a statement's end, or a block's opening.
const endsStatement = (tok) =>
  tok === undefined ||
  tok.t === "name" ||
  tok.t === "num" ||
  tok.t === "str" ||
  (tok.t === "kw" && /^(then|do|else|end|repeat|true|false|nil|break)$/.test(tok.v)) ||
  (tok.t === "op" && /^(\)|\]|\}|;|\.\.\.)$/.test(tok.v));

/**
 * The names `toks` declares at its top level (`local a, b` and `local function f`, outside any
 * block), each with the index of its `local` token.
 */
export function topLevelLocals(toks) {
  const found = [];
  let depth = 0;
  toks.forEach((tok, i) => {
    if (tok.t !== "kw") return;
    if (/^(function|do|if|repeat)$/.test(tok.v)) depth++;
    else if (tok.v === "end" || tok.v === "until") depth--;
    else if (tok.v === "local" && depth === 0) {
      let j = i + 1;
      if (toks[j]?.v === "function") {
        found.push({ name: toks[j + 1].v, at: i });
        return;
      }
      const names = [];
      for (; toks[j]?.t === "name"; j += 2) {
        names.push(toks[j].v);
        if (toks[j + 1]?.v !== ",") break;
      }
      // `bare`: declared without a value; its last name's token index.
      const bare = toks[j + 1]?.v === "=" ? undefined : j;
      for (const name of names) found.push({ name, at: i, bare });
    }
  });
  return found;
}

/** Whether `toks[i]`, a name, is a declaration: a local's, a parameter's or a loop variable's. */
function declares(toks, i) {
  let j = i - 1;
  while (toks[j]?.v === "," && toks[j - 1]?.t === "name") j -= 2; // `a, b, NAME`
  const tok = toks[j];
  if (tok?.v === "local" || tok?.v === "for") return true;
  if (tok?.v === "function") return toks[j - 1]?.v === "local";
  if (tok?.v !== "(") return false;
  // A parameter list: `function (`, or `function a.b:c(`.
  for (j--; toks[j]?.t === "name" || toks[j]?.v === "." || toks[j]?.v === ":"; j--);
  return toks[j]?.v === "function";
}

/**
 * `text` with every use of a lazy name made a field of `libs`, loaded first. `lazy` maps a name to
 * { loader } (its library's loader's key in libs), or to { loader, extended } for a table a later
 * library adds to: that library's loader (which loads the table's first), run unless it already
 * became `extended`, the no-op. `own` (a Set) names the lazy names of the library `text` is, read
 * as fields without a load (its loader runs them). A local of the same name hides one in its scope.
 */
export function loadingUses(text, lazy, where, own = new Set()) {
  const toks = tokens(text);
  const field = (name) => `libs.${name}`;
  const load = (name) => {
    const { loader, extended } = lazy.get(name);
    return extended ? `libs.${loader} ~= ${extended}` : `not libs.${name}`;
  };
  let out = "";
  let from = 0;
  let depth = 0;
  const hidden = []; // { name, depth }: locals that hide a lazy name
  const put = (tok, replacement) => {
    out += text.slice(from, tok.s) + replacement;
    from = tok.e;
  };
  toks.forEach((tok, i) => {
    if (tok.t === "kw") {
      if (/^(function|do|if|repeat)$/.test(tok.v)) depth++;
      else if (tok.v === "end" || tok.v === "until") {
        depth--;
        while (hidden.length && hidden.at(-1).depth > depth) hidden.pop();
      } else if (tok.v === "else" || tok.v === "elseif") {
        // A branch's locals end where the next branch begins.
        while (hidden.length && hidden.at(-1).depth >= depth) hidden.pop();
      }
      return;
    }
    if (tok.t !== "name" || !(lazy.has(tok.v) || own.has(tok.v))) return;
    if (hidden.some((h) => h.name === tok.v)) return;
    const before = toks[i - 1];
    const after = toks[i + 1];
    if (before?.v === "." || before?.v === ":") return;
    if (declares(toks, i)) {
      let chain = i - 1;
      while (toks[chain]?.v === "," || toks[chain]?.t === "name") chain--;
      const at =
        toks[chain]?.v === "for"
          ? depth + 1
          : toks[chain]?.v === "function" && toks[chain - 1]?.v === "local"
            ? depth - 1
            : depth;
      const eol = text.indexOf("\n", tok.e) < 0 ? text.length : text.indexOf("\n", tok.e);
      const readsIt = toks.some((t, j) => j > i && t.s < eol && t.v === tok.v && !/^[.:]$/.test(toks[j - 1].v));
      if (readsIt)
        throw new Error(
          `${where}: the local ${tok.v} hides a lazy library's name on the line that reads it: rename it`,
        );
      hidden.push({ name: tok.v, depth: at });
      return;
    }
    const starts = endsStatement(before);
    if (before?.v === "function") {
      if (own.has(tok.v)) {
        put(tok, field(tok.v));
        return;
      } // `function NAME.f` of its own
      // `function NAME.field()` adds to a lazy library's table: load it before.
      if (after?.v !== "." && after?.v !== ":")
        throw new Error(`${where}: function ${tok.v} assigns a lazy library's name`);
      out += `${text.slice(from, before.s)}if ${load(tok.v)} then libs.${lazy.get(tok.v).loader}() end `;
      from = before.s;
      put(tok, field(tok.v));
      return;
    }
    if (own.has(tok.v) || after?.v === "=" || (starts && after?.v === ",")) {
      // Its own library's name, a table constructor's key, or an assignment: another file's would be
      // overwritten by the loader.
      if (starts && !own.has(tok.v))
        throw new Error(`${where}: assigns ${tok.v}, a lazy library's name: mark that library @eager`);
      if (!starts && after?.v === "=" && !own.has(tok.v)) return; // a key
      put(tok, field(tok.v));
      return;
    }
    const { loader, bare } = lazy.get(tok.v);
    // Nil until its library sets it: read as it stands, no load.
    if (bare) {
      put(tok, field(tok.v));
      return;
    }
    if (starts) {
      out += `${text.slice(from, tok.s)}if ${load(tok.v)} then libs.${loader}() end `;
      from = tok.s;
      put(tok, field(tok.v));
      return;
    }
    const { extended } = lazy.get(tok.v);
    if (extended) put(tok, `(libs.${loader} == ${extended} and libs.${tok.v} or libs.${loader}() or libs.${tok.v})`);
    else put(tok, `(libs.${tok.v} or libs.${loader}() or libs.${tok.v})`);
  });
  return out + text.slice(from);
}

/** The names `text` uses as variables (not as fields), for which top-level locals later parts need. */
export function namesUsed(text) {
  const toks = tokens(text);
  return new Set(
    toks.filter((tok, i) => tok.t === "name" && toks[i - 1]?.v !== "." && toks[i - 1]?.v !== ":").map((t) => t.v),
  );
}

/**
 * The names of `names` (a Map) whose tables `toks` adds to at its top level: `function NAME.f`,
 * `function NAME:f` or `NAME.f = …`. The library that adds must be loaded with the one it adds to.
 */
export function topLevelExtends(toks, names) {
  const found = new Set();
  let depth = 0;
  toks.forEach((tok, i) => {
    if (tok.t === "kw" && /^(function|do|if|repeat)$/.test(tok.v)) {
      const target = toks[i + 1];
      if (depth === 0 && tok.v === "function" && names.has(target?.v) && /^[.:]$/.test(toks[i + 2]?.v ?? ""))
        found.add(target.v);
      depth++;
    } else if (tok.t === "kw" && (tok.v === "end" || tok.v === "until")) depth--;
    else if (depth === 0 && tok.t === "name" && names.has(tok.v) && endsStatement(toks[i - 1]))
      if (toks[i + 1]?.v === "." && toks[i + 3]?.v === "=") found.add(tok.v);
  });
  return found;
}

/** Names `toks` assigns other than where it declares them (its own, read as fields: their locals would go stale). */
function assigned(toks, names) {
  const found = new Set();
  toks.forEach((tok, i) => {
    if (tok.t !== "name" || !names.has(tok.v) || declares(toks, i)) return;
    const before = toks[i - 1];
    if (before?.v === "." || before?.v === ":") return;
    let j = i + 1;
    while (toks[j]?.v === "," && toks[j + 1]?.t === "name") j += 2;
    if (toks[j]?.v === "=" && endsStatement(before)) found.add(tok.v);
    if (before?.v === "," && toks[i + 1]?.v === "=") found.add(tok.v);
  });
  return found;
}

/**
 * A lazy library's shipped text as its loader `libs.LOADER`: its first line (blank) opens it, and
 * the loader first becomes `noop`, so it runs once a call. Its top-level locals that `exported`
 * names stay locals of the loader, copied into `libs` at its end, save those it assigns again
 * (read and written as fields) and bare ones (`local a`, nil: fields from the start). Answers
 * the text and the names now in libs.
 */
export function asLoader(text, exported, loader, noop, where) {
  if (!text.startsWith("\n")) throw new Error(`${where}: a lazy library's first line must be a comment`);
  const toks = tokens(text);
  const declared = topLevelLocals(toks);
  const statements = new Set(declared.filter((d) => exported.has(d.name)).map((d) => d.at));
  const names = [...new Set(declared.filter((d) => statements.has(d.at)).map((d) => d.name))];
  const reassigned = assigned(toks, new Set(names));
  const asFields = new Set(
    declared.filter((d) => statements.has(d.at) && (d.bare !== undefined || reassigned.has(d.name))).map((d) => d.name),
  );
  // Statements whose names all become fields lose `local`; a bare one goes whole.
  let body = "";
  let from = 0;
  for (const at of [...statements].sort((a, b) => a - b)) {
    const mine = declared.filter((d) => d.at === at);
    const fields = mine.filter((d) => asFields.has(d.name));
    if (fields.length === 0) continue;
    if (fields.length !== mine.length)
      throw new Error(`${where}: ${mine.map((d) => d.name).join(", ")}: declare them apart`);
    body += text.slice(from, toks[at].s);
    from = mine[0].bare === undefined ? toks[at + 1].s : toks[mine[0].bare].e;
  }
  body += text.slice(from);
  body = loadingUses(body, new Map(), where, asFields);
  const copied = names.filter((n) => !asFields.has(n));
  const copy = copied.length ? ` ${copied.map((n) => `libs.${n}`).join(", ")} = ${copied.join(", ")}` : "";
  const last = tokens(body).at(-1);
  if (last === undefined) throw new Error(`${where}: a lazy library with no code`);
  // Closed right after the last token, before any comment that follows it.
  const head = `function libs.${loader}() libs.${loader} = ${noop}`;
  const bare = declared.filter((d) => d.bare !== undefined && asFields.has(d.name)).map((d) => d.name);
  return { text: `${head}${body.slice(0, last.e)}${copy} end${body.slice(last.e)}`, names, bare };
}

/**
 * An entry script's parts as shipped: each library part ({ lib: { file, name, text, eager } })
 * but an @eager one becomes its loader, every part ({ lib } or { own: lines }) loads the lazy
 * names it uses, and the first loader's line declares `libs` and the no-op a loader becomes.
 * Answers the parts, each with its `text`.
 */
export function shaped(parts, file) {
  const lazy = new Map(); // name → how a use loads it
  const eager = new Map(); // name → the @eager library whose top-level local it is
  const noop = "loaded_lib";
  const textOf = (p) => (p.lib ? p.lib.text : p.own.join("\n"));
  let first = true;
  return parts.map((p, i) => {
    const where = p.lib ? `${file} (${p.lib.file})` : file;
    // A local of these names would hide the build's from the loads in its scope.
    const toks = tokens(textOf(p));
    const taken = toks.find((tok, j) => (tok.v === "libs" || tok.v === noop) && declares(toks, j));
    if (taken) throw new Error(`${where}: a local named ${taken.v} hides the build's: rename it`);
    const text = loadingUses(textOf(p), lazy, where);
    if (p.lib?.eager) for (const { name } of topLevelLocals(toks)) eager.set(name, p.lib.file);
    if (!p.lib || p.lib.eager) return { ...p, text };
    // Nothing would run its loader before an eager table's added-to field is read.
    for (const name of topLevelExtends(toks, eager))
      throw new Error(`${where}: adds to ${name} of ${eager.get(name)}, an @eager library: mark it @eager too`);
    const later = new Set(parts.slice(i + 1).flatMap((q) => [...namesUsed(textOf(q))]));
    const loader = `load_${p.lib.name}`;
    const { text: loaded, names, bare } = asLoader(text, later, loader, noop, where);
    // A table this library adds to is whole only once this library ran: its later uses run this loader.
    for (const name of topLevelExtends(tokens(textOf(p)), lazy)) lazy.set(name, { loader, extended: noop });
    for (const name of names) {
      if (lazy.has(name)) throw new Error(`${where}: ${name} is a top-level local of another library too: rename one`);
      lazy.set(name, { loader, bare: bare.includes(name) });
    }
    const head = first ? `local libs, ${noop} = {}, function() end ` : "";
    first = false;
    return { ...p, text: head + loaded };
  });
}
