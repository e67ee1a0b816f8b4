// Shortens the names of tickq's own Lua locals in the shipped text, the
// same way in every script, so each script reads as it did: the Worker's
// size budget is why (long local names are about a tenth of the Lua).
// One map for all texts: libraries and entry scripts are joined at load,
// and a name is renamed everywhere it is a name (never after `.` or `:`,
// never inside a string, long ones included), so scopes and shadowing are as written; a new
// name is one no text uses. Renamed: names declared somewhere (`local`,
// parameters, `for` variables). Kept: Lua's and Redis' globals, keywords,
// field names (`t.name`, `t:name`: another namespace, never touched) and
// every name that is ever a table constructor's key (`{name = …}`).
const KEYWORDS = new Set(
  "and break do else elseif end false for function if in local nil not or repeat return then true until while".split(" "),
);
const GLOBALS = new Set(
  ("redis KEYS ARGV string table math tonumber tostring type pairs ipairs next select unpack error pcall xpcall assert " +
    "rawget rawset rawequal setmetatable getmetatable cjson cmsgpack bit struct _G _VERSION collectgarbage loadstring " +
    "print coroutine os load gcinfo newproxy module require package debug io dofile loadfile self").split(" "),
);

const TOKEN = new RegExp(
  [
    /(?<space>\s+)/,
    /(?<str>'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|\[(?<level>=*)\[[\s\S]*?\]\k<level>\])/,
    /(?<num>0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/,
    /(?<name>[A-Za-z_][A-Za-z0-9_]*)/,
    /(?<punct>\.\.\.|\.\.|==|~=|<=|>=|[^\sA-Za-z0-9_'"])/,
  ]
    .map((r) => r.source)
    .join("|"),
  "y",
);

/** A text's tokens: { kind, text }, spaces kept (they are part of the output); a `#!lua` line is one token. */
export function tokenize(text) {
  const tokens = [];
  if (text.startsWith("#!")) {
    const end = text.indexOf("\n") < 0 ? text.length : text.indexOf("\n");
    return [{ kind: "shebang", text: text.slice(0, end) }, ...tokenize(text.slice(end))];
  }
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m) throw new Error(`lua-rename: cannot read ${JSON.stringify(text.slice(at, at + 40))}`);
    const kind = ["space", "str", "num", "name", "punct"].find((k) => m.groups[k] !== undefined);
    tokens.push({ kind, text: m[0] });
  }
  return tokens;
}

/** The names declared, the names that are fields, and every name used, over all texts. */
function survey(tokenLists) {
  const declared = new Set(), fields = new Set(), used = new Map();
  for (const all of tokenLists) {
    const t = all.filter((x) => x.kind !== "space");
    for (let i = 0; i < t.length; i++) {
      const tok = t[i], prev = t[i - 1]?.text, next = t[i + 1]?.text;
      if (tok.kind !== "name") continue;
      used.set(tok.text, (used.get(tok.text) ?? 0) + 1);
      // a table constructor's key (or, as often, a name in `local a, b =`: kept too, to be sure)
      if (prev !== "." && prev !== ":" && next === "=" && (prev === "{" || prev === "," || prev === ";")) fields.add(tok.text);
      if (tok.text === "local" && next === "function") {
        declared.add(t[i + 2].text);
      } else if (tok.text === "local" || tok.text === "for") {
        for (let j = i + 1; j < t.length; j += 2) {
          if (t[j].kind !== "name") break;
          declared.add(t[j].text);
          if (t[j + 1]?.text !== ",") break;
        }
      }
      if (tok.text === "function") {
        let j = i + 1;
        while (j < t.length && t[j].text !== "(") j++;
        for (j++; j < t.length && t[j].text !== ")"; j++) if (t[j].kind === "name") declared.add(t[j].text);
      }
    }
  }
  return { declared, fields, used };
}

/** Short names, shortest first, none a keyword or a name any text uses. */
function* shortNames(taken) {
  const first = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const rest = first + "0123456789_";
  for (let len = 1; ; len++) {
    const build = function* (prefix, left) {
      if (left === 0) return yield prefix;
      for (const c of prefix === "" ? first : rest) yield* build(prefix + c, left - 1);
    };
    for (const name of build("", len)) if (!taken.has(name) && !KEYWORDS.has(name)) yield name;
  }
}

/** The map from long local names to short ones, the most used getting the shortest. */
export function renameMap(texts) {
  const { declared, fields, used } = survey(texts.map(tokenize));
  const renamable = [...declared].filter((n) => !fields.has(n) && !GLOBALS.has(n) && !KEYWORDS.has(n));
  renamable.sort((a, b) => used.get(b) * b.length - used.get(a) * a.length || a.localeCompare(b));
  const names = shortNames(new Set(used.keys()));
  const map = new Map();
  for (const name of renamable) {
    const short = names.next().value;
    if (short.length < name.length) map.set(name, short);
  }
  return map;
}

/** `text` with every renamable name replaced (not after `.` or `:`). */
export function renameLua(text, map) {
  const tokens = tokenize(text);
  let prev;
  return tokens
    .map((tok) => {
      const out = tok.kind === "name" && prev !== "." && prev !== ":" && map.has(tok.text) ? map.get(tok.text) : tok.text;
      if (tok.kind !== "space") prev = tok.text;
      return out;
    })
    .join("");
}
