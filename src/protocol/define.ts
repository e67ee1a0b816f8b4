// The protocol between TypeScript and a Lua entry script, declared once:
// its KEYS by name, its ARGV as named parts, its reply as named fields.
// `encode` turns a named object into (keys, argv); `decode` turns a reply
// into a typed object, so no caller reads a reply by position. The same
// declaration renders the signature each .lua header carries
// (signature.ts), which test/unit/lua-protocol.test.ts compares.
//
// ARGV's one rule: parts follow each other in declared order; a part of
// variable length is a counted section (its count, then its items); a part
// that may be absent is `optional`, and the declaration says how Lua knows:
// with its KEYS (present exactly when those keys are given) or last (present
// when ARGV goes on; only at the end).
import { TickqError } from "../errors.js";
import type { LuaScript, RedisReply } from "../redis/types.js";

/** One ARGV value; `flag` is sent as 1 or 0. */
export type Value = { readonly kind: "text" } | { readonly kind: "number" } | { readonly kind: "flag" };
export type ArgSpec =
  | Value
  | { readonly kind: "group"; readonly fields: Fields }
  | { readonly kind: "counted"; readonly item: ArgSpec }
  | { readonly kind: "optional"; readonly item: ArgSpec; readonly when: "keys" | "last" }
  /** A counted section whose count value may carry its trailers' headers; their entries follow the items, in order. */
  | { readonly kind: "trailed"; readonly item: ArgSpec; readonly trailers: readonly Trailer[] }
  /**
   * Texts sent as one ARGV value, joined by JOIN_SEPARATOR, after their count marked "j" ("j3", then
   * "a\x1eb\x1ec"); as a counted section of texts (count, then one value each) when one holds the
   * separator or there are none. One value where a job a value cost the client ~1,600 instructions a
   * job in ioredis' argument handling (bench/client-instructions.ts).
   */
  | { readonly kind: "joined" }
  /**
   * A counted section whose values (its count, then its items' values, as `counted` sends them) go as one
   * value joined by JOIN_SEPARATOR, after their number marked "j" ("j9", then "2\x1ea\x1e…"); as the
   * counted section itself when it is empty or one holds the separator. One value where a workflow call's 100 commits
   * were 800, and ioredis handled each (Array.prototype.flat, byte lengths, concatenation) for some
   * 1,400 instructions a value (bench/workflow-instructions.ts).
   */
  | { readonly kind: "packed"; readonly item: ArgSpec };
export type Fields = { readonly [name: string]: ArgSpec };

/**
 * An optional trailer of a counted section: when present, the section's
 * count value goes on with " <tag><entries' count> <field> …" (one ARGV
 * value, the fields plain values; trailers in declared order), and its
 * entries follow the section's items (and the entries of the trailers before
 * it). `perItem`: entries that follow the counted ones, one per item of the
 * section, so their count is the section's and is not sent.
 */
export interface Trailer {
  readonly name: string;
  /** Marks the header where the trailers' headers could be told apart only by it ("m": " m<entries> …"). */
  readonly tag?: string;
  readonly fields: { readonly [name: string]: Value };
  readonly entries: ArgSpec;
  /** The entries go as one `packed` section (their count, then their values in one value) where they were a value each. */
  readonly packed?: boolean;
  readonly perItem?: ArgSpec;
}

export type KeySpec = { readonly kind: "key" } | { readonly kind: "keys"; readonly names: readonly string[] };
export type KeyFields = { readonly [name: string]: KeySpec };

export type ReplySpec =
  /** Any reply, as the client handed it over (a JSON value a client may have decoded already). */
  | { readonly kind: "value" }
  | { readonly kind: "text" }
  | { readonly kind: "number" }
  | { readonly kind: "flag" }
  /** An array by position: one named field each. */
  | { readonly kind: "tuple"; readonly fields: ReplyFields }
  /** An array of items of one shape. */
  | { readonly kind: "list"; readonly item: ReplySpec }
  /**
   * A list of texts: an array of them, or (one text or more, none holding JOIN_SEPARATOR) one string,
   * them joined by it, or an array holding one array of such strings (chunks, each some texts joined:
   * lib/common/joined.lua). One bulk string where a job each cost the client ~6,000 instructions a job
   * in ioredis' reply decoder (bench/client-instructions.ts); chunks of at most 8 KiB where one string
   * of a batch cost Redis' Lua each byte's hashing three times (bench/redis-step-instructions.ts).
   * Read as TextsRead.
   */
  | { readonly kind: "texts" }
  /**
   * A list of numbers 0–9 as one string of digits ("101"), or an array of numbers: one bulk string where a
   * workflow call's 100 commit flags were 100 integers, each an element for ioredis' reply decoder
   * (bench/workflow-instructions.ts).
   */
  | { readonly kind: "digits" }
  /** A flat array of repeated groups: {a, b, a, b, ...}. */
  | { readonly kind: "groups"; readonly fields: ReplyFields }
  /** A trailing field that may be missing; a tuple sent as an empty array counts as missing too. */
  | { readonly kind: "optional"; readonly item: ReplySpec }
  /** An array whose first element names which of several tuples the rest is. */
  | { readonly kind: "variants"; readonly cases: { readonly [tag: string]: ReplyFields } };
export type ReplyFields = { readonly [name: string]: ReplySpec };

export const text = { kind: "text" } as const;
export const number = { kind: "number" } as const;
export const flag = { kind: "flag" } as const;
export const group = <F extends Fields>(fields: F) => ({ kind: "group", fields }) as const;
export const counted = <I extends ArgSpec>(item: I) => ({ kind: "counted", item }) as const;
export const optional = <I extends ArgSpec>(item: I, when: "keys" | "last") =>
  ({ kind: "optional", item, when }) as const;
/** One trailer of a `trailed` section; `const` keeps its name a literal for the section's type. */
export const trailer = <
  const N extends string,
  F extends { readonly [name: string]: Value },
  E extends ArgSpec,
  P extends ArgSpec | undefined = undefined,
>(spec: {
  name: N;
  tag?: string;
  fields: F;
  entries: E;
  packed?: boolean;
  perItem?: P;
}) =>
  spec as { name: N; tag?: string; fields: F; entries: E; packed?: boolean } & (P extends ArgSpec
    ? { perItem: P }
    : unknown);
export const trailed = <I extends ArgSpec, const T extends readonly Trailer[]>(item: I, ...trailers: T) =>
  ({ kind: "trailed", item, trailers }) as const;
/** The separator of `joined` arguments and `texts` replies: ASCII's record separator, which JSON text never holds raw. */
export const JOIN_SEPARATOR = "\x1e";
export const joined = { kind: "joined" } as const;
export const packed = <I extends ArgSpec>(item: I) => ({ kind: "packed", item }) as const;
export const texts = { kind: "texts" } as const;
export const digits = { kind: "digits" } as const;
/** What every adapter reads in place of bytes that are not valid UTF-8 (the WHATWG decoder's U+FFFD). */
export const REPLACED = "\uFFFD";
/**
 * A `texts` reply as read: the texts, and `replaced` when one holds U+FFFD (its stored bytes may not be
 * valid UTF-8: src/tick/passes/ack-refs.ts names such a job apart). Checked once a joined value (an
 * all-ASCII one answers at once), text by text only in a list (begin's reply, a text holding the separator).
 */
export type TextsRead = string[] & { replaced?: true };
export const key = { kind: "key" } as const;
export const keyGroup = <const N extends readonly string[]>(...names: N) => ({ kind: "keys", names }) as const;
export const value = { kind: "value" } as const;
export const tuple = <F extends ReplyFields>(fields: F) => ({ kind: "tuple", fields }) as const;
export const list = <I extends ReplySpec>(item: I) => ({ kind: "list", item }) as const;
export const groups = <F extends ReplyFields>(fields: F) => ({ kind: "groups", fields }) as const;
export const maybe = <I extends ReplySpec>(item: I) => ({ kind: "optional", item }) as const;
export const variants = <C extends { readonly [tag: string]: ReplyFields }>(cases: C) =>
  ({ kind: "variants", cases }) as const;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

export type ArgOf<S> = S extends { kind: "text" }
  ? string
  : S extends { kind: "number" }
    ? number
    : S extends { kind: "flag" }
      ? boolean
      : S extends { kind: "group"; fields: infer F }
        ? ArgsOf<F>
        : S extends { kind: "counted"; item: infer I }
          ? readonly ArgOf<I>[]
          : S extends { kind: "optional"; item: infer I }
            ? ArgOf<I> | undefined
            : S extends { kind: "trailed"; item: infer I; trailers: infer T }
              ? TrailedOf<I, T>
              : S extends { kind: "joined" }
                ? readonly string[]
                : S extends { kind: "packed"; item: infer I }
                  ? readonly ArgOf<I>[]
                  : never;
/** A trailed section's value: its items, and each trailer (its fields and entries) when present. */
type TrailedOf<I, T> = T extends readonly Trailer[]
  ? Simplify<{ items: readonly ArgOf<I>[] } & { [K in T[number] as K["name"]]?: TrailerOf<K> }>
  : never;
type TrailerOf<T> = T extends { fields: infer F; entries: infer E }
  ? Simplify<
      ArgsOf<F> & { entries: readonly ArgOf<E>[] } & (T extends { perItem: infer P extends ArgSpec }
          ? { perItem: readonly ArgOf<P>[] }
          : unknown)
    >
  : never;
export type ArgsOf<F> = Simplify<
  { [K in keyof F as F[K] extends { kind: "optional" } ? never : K]: ArgOf<F[K]> } & {
    [K in keyof F as F[K] extends { kind: "optional" } ? K : never]?: ArgOf<F[K]>;
  }
>;

type KeyGroupOf<S> = S extends { kind: "keys"; names: infer N extends readonly string[] }
  ? { [K in N[number]]: string }
  : never;
export type KeysOf<F> = Simplify<
  { [K in keyof F as F[K] extends { kind: "keys" } ? never : K]: string } & {
    [K in keyof F as F[K] extends { kind: "keys" } ? K : never]?: KeyGroupOf<F[K]>;
  }
>;

export type ReplyOf<S> = S extends { kind: "value" }
  ? RedisReply
  : S extends { kind: "text" }
    ? string
    : S extends { kind: "number" }
      ? number
      : S extends { kind: "flag" }
        ? boolean
        : S extends { kind: "tuple"; fields: infer F }
          ? RepliesOf<F>
          : S extends { kind: "list"; item: infer I }
            ? ReplyOf<I>[]
            : S extends { kind: "texts" }
              ? TextsRead
              : S extends { kind: "digits" }
                ? number[]
                : S extends { kind: "groups"; fields: infer F }
                  ? RepliesOf<F>[]
                  : S extends { kind: "optional"; item: infer I }
                    ? ReplyOf<I> | undefined
                    : S extends { kind: "variants"; cases: infer C }
                      ? { [T in keyof C]: Simplify<{ kind: T } & RepliesOf<C[T]>> }[keyof C]
                      : never;
type RepliesOf<F> = Simplify<
  { [K in keyof F as F[K] extends { kind: "optional" } ? never : K]: ReplyOf<F[K]> } & {
    [K in keyof F as F[K] extends { kind: "optional" } ? K : never]?: ReplyOf<F[K]>;
  }
>;

/** One entry script's protocol. ARGV[1], the key prefix, is every script's and is not declared. */
export interface Call {
  readonly script: LuaScript;
  readonly keys: KeyFields;
  readonly args: Fields;
  readonly reply: ReplySpec;
}

/**
 * A declaration with its TypeScript types worked out once, where the specs
 * are concrete (`types` is never set: it only carries them to runCall).
 */
export interface TypedCall<Keys, Args, Reply> extends Call {
  readonly types?: { keys: Keys; args: Args; reply: Reply };
}

export function defineCall<K extends KeyFields, A extends Fields, R extends ReplySpec>(
  script: LuaScript,
  keys: K,
  args: A,
  reply: R,
): TypedCall<KeysOf<K>, ArgsOf<A>, ReplyOf<R>> {
  checkOptionals(script.name, args);
  return { script, keys, args, reply };
}

/** An optional part tied to KEYS needs optional keys to be tied to; a `last` one only counted or last parts after it. */
function checkOptionals(name: string, args: Fields): void {
  const parts = Object.entries(args);
  parts.forEach(([part, spec], i) => {
    if (spec.kind !== "optional" || spec.when !== "last") return;
    const after = parts.slice(i + 1);
    if (after.some(([, s]) => s.kind !== "optional" || s.when !== "last")) {
      throw new Error(
        `${name}: optional part ${part} is read as "present when ARGV goes on", so only such parts may follow it`,
      );
    }
  });
}

export interface Encoded {
  keys: string[];
  /** ARGV after the prefix (the runtime puts the prefix first). */
  args: (string | number)[];
}

/** `keys` and `args` as named objects (KeysOf, ArgsOf of the declaration); runCall types them. */
export function encode(call: Call, keys: object, args: object): Encoded {
  const name = call.script.name;
  // Texts from the start, as valueList(): an empty literal would hold small integers until the first key.
  const outKeys = emptyOfKind("");
  let keysGiven = true;
  // Indexed loops over the declaration's fields listed once: encode runs every call, and iterators and
  // destructuring cost TurboFan compile time in the first drains (bench/client-instructions.ts).
  const keyFields = fieldsOf(call.keys);
  for (let i = 0; i < keyFields.length; i++) {
    const part = keyFields[i]![0];
    const spec = keyFields[i]![1];
    const value = (keys as Record<string, unknown>)[part];
    if (spec.kind === "key") {
      if (typeof value !== "string") throw bad(name, `key ${part} is missing`);
      outKeys.push(value);
    } else if (value === undefined) {
      keysGiven = false;
    } else {
      for (let k = 0; k < spec.names.length; k++)
        outKeys.push(String((value as Record<string, unknown>)[spec.names[k]!]));
    }
  }
  const out = valueList();
  let trailingAbsent = false;
  const argFields = fieldsOf(call.args);
  for (let i = 0; i < argFields.length; i++) {
    const part = argFields[i]![0];
    const spec = argFields[i]![1];
    const value = (args as Record<string, unknown>)[part];
    if (spec.kind === "optional") {
      const present = value !== undefined;
      if (spec.when === "keys" && present !== keysGiven)
        throw bad(name, `${part} is sent exactly when the optional keys are`);
      if (spec.when === "last") {
        if (trailingAbsent && present) throw bad(name, `${part} cannot follow an absent optional part`);
        if (!present) trailingAbsent = true;
      }
      if (present) put(name, part, spec.item, value, out);
    } else {
      put(name, part, spec, value, out);
    }
  }
  return { keys: outKeys, args: out };
}

/** One part alone, as it sits in ARGV (for tests that build a call's ARGV by hand). */
export function encodePart(spec: ArgSpec, value: unknown): (string | number)[] {
  const out = valueList();
  put("part", "part", spec, value, out);
  return out;
}

/**
 * One value as `spec` says, into `out`. `part` names it in an error, with `field` after a dot when
 * given: the name is joined only where an error needs it or a section nests, not per item.
 */
function put(
  name: string,
  part: string,
  spec: ArgSpec,
  value: unknown,
  out: (string | number)[],
  field?: string,
): void {
  switch (spec.kind) {
    case "text":
      if (typeof value !== "string") throw bad(name, `${at(part, field)} must be a string, got ${typeof value}`);
      out.push(value);
      return;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value))
        throw bad(name, `${at(part, field)} must be a finite number, got ${String(value)}`);
      out.push(value);
      return;
    case "flag":
      if (typeof value !== "boolean") throw bad(name, `${at(part, field)} must be a boolean`);
      out.push(value ? 1 : 0);
      return;
    case "group": {
      const path = at(part, field);
      const fields = fieldsOf(spec.fields);
      for (let i = 0; i < fields.length; i++) {
        const f = fields[i]![0];
        put(name, path, fields[i]![1], (value as Record<string, unknown>)?.[f], out, f);
      }
      return;
    }
    case "counted": {
      const path = at(part, field);
      if (!Array.isArray(value)) throw bad(name, `${path} must be an array`);
      out.push(value.length);
      for (let i = 0; i < value.length; i++) put(name, path, spec.item, value[i], out);
      return;
    }
    case "optional":
      if (value !== undefined) put(name, part, spec.item, value, out, field);
      return;
    case "trailed":
      putTrailed(name, at(part, field), spec, value, out);
      return;
    case "joined":
      putJoined(name, at(part, field), value, out);
      return;
    case "packed":
      putPacked(name, at(part, field), spec.item, value, out);
      return;
  }
}

/**
 * `packed`: "j<values>" and the section's values in one value, or (none, or one holds the separator) the
 * section as it is.
 */
function putPacked(name: string, part: string, item: ArgSpec, value: unknown, out: (string | number)[]): void {
  if (!Array.isArray(value)) throw bad(name, `${part} must be an array`);
  if (value.length === 0) {
    out.push(0);
    return;
  }
  const values = valueList();
  values.push(value.length);
  if (item.kind === "group") {
    // A group's fields listed once for the section, not once an item (put's group case, inlined).
    const fields = fieldsOf(item.fields);
    for (let i = 0; i < value.length; i++) {
      const one = value[i] as Record<string, unknown> | undefined;
      for (let k = 0; k < fields.length; k++) {
        const field = fields[k]![0];
        put(name, part, fields[k]![1], one?.[field], values, field);
      }
    }
  } else for (let i = 0; i < value.length; i++) put(name, part, item, value[i], values);
  for (let i = 1; i < values.length; i++) {
    const v = values[i];
    if (typeof v === "string" && holdsSeparator(v)) {
      for (let k = 0; k < values.length; k++) out.push(values[k]!);
      return;
    }
  }
  out.push(`j${values.length}`, values.join(JOIN_SEPARATOR));
}

// Called, not read off each value: the values of every call's sections (ids, JSON, names, flat or
// sliced strings) meet at one `v.includes` load, whose feedback goes megamorphic, and optimized code
// then looked the method up generically once a value (bench/ordered-instructions.ts).
const stringIncludes = String.prototype.includes;
const holdsSeparator = (text: string): boolean => stringIncludes.call(text, JOIN_SEPARATOR);

/** `joined`: "j<count>" and the texts in one value, or (one holds the separator, or none) count and one value each. */
function putJoined(name: string, part: string, value: unknown, out: (string | number)[]): void {
  if (!Array.isArray(value)) throw bad(name, `${part} must be an array`);
  const n = value.length;
  let apart = n === 0;
  for (let i = 0; i < n; i++) {
    const item: unknown = value[i];
    if (typeof item !== "string") throw bad(name, `${part} must hold strings, got ${typeof item}`);
    if (holdsSeparator(item)) apart = true;
  }
  if (!apart) {
    out.push(`j${n}`, value.join(JOIN_SEPARATOR));
    return;
  }
  out.push(n);
  for (let i = 0; i < n; i++) out.push(value[i] as string);
}

const at = (part: string, field: string | undefined) => (field === undefined ? part : `${part}.${field}`);

/** The count (a number, or "<count> <entries> <field> …" per trailer present), the items, each trailer's entries. */
function putTrailed(
  name: string,
  part: string,
  spec: { readonly item: ArgSpec; readonly trailers: readonly Trailer[] },
  value: unknown,
  out: (string | number)[],
): void {
  const section = (value ?? {}) as Record<string, unknown>;
  const { items } = section;
  if (!Array.isArray(items)) throw bad(name, `${part}.items must be an array`);
  const header = valueList();
  header.push(items.length);
  const tails = valueList();
  for (const t of spec.trailers) {
    const present = section[t.name] as Record<string, unknown> | undefined;
    if (present === undefined) continue;
    const where = `${part}.${t.name}`;
    const { entries, perItem } = present;
    if (!Array.isArray(entries)) throw bad(name, `${where}.entries must be an array`);
    header.push(`${t.tag ?? ""}${entries.length}`);
    for (const [field, s] of Object.entries(t.fields)) put(name, where, s, present[field], header, field);
    const entriesAt = `${where}.entries`;
    if (t.packed) putPacked(name, entriesAt, t.entries, entries, tails);
    else for (const entry of entries) put(name, entriesAt, t.entries, entry, tails);
    if (t.perItem) {
      if (!Array.isArray(perItem) || perItem.length !== items.length)
        throw bad(name, `${where}.perItem must hold one entry per item (${items.length})`);
      const perItemAt = `${where}.perItem`;
      for (const entry of perItem) put(name, perItemAt, t.perItem, entry, tails);
    }
  }
  out.push(header.length > 1 ? header.join(" ") : items.length);
  for (const item of items) put(name, part, spec.item, item, out);
  // A loop, not push(...tails): optimized, the spread checked the list's length and deoptimized
  // ("the array length changed", bench/drain-warmup.ts).
  for (let i = 0; i < tails.length; i++) out.push(tails[i] as string | number);
}

/**
 * An empty list of ARGV values whose elements are of the generic kind from the start. A literal `[]`
 * (or `[n]`) holds small integers until a text or a fraction goes in, so put()'s one `out.push` met a
 * list of another kind (small integers, floats, any value) depending on a call's first values, and its
 * optimized code deoptimized for each ("wrong map", bench/drain-warmup.ts); now every list is of one.
 */
function valueList(): (string | number)[] {
  return emptyOfKind<string | number>("");
}

/** An empty list of `like`'s elements kind (a text: the generic kind): a literal holding it, popped. */
function emptyOfKind<T>(like: T): T[] {
  const list = [like];
  list.pop();
  return list;
}

const fieldLists = new WeakMap<object, readonly (readonly [string, unknown])[]>();

/** A declaration's fields as [name, spec] pairs, listed once (not an Object.entries a value). */
function fieldsOf<S>(fields: { readonly [name: string]: S }): readonly (readonly [string, S])[] {
  let list = fieldLists.get(fields);
  if (!list) fieldLists.set(fields, (list = Object.entries(fields)));
  return list as readonly (readonly [string, S])[];
}

function bad(name: string, why: string): TickqError {
  return new TickqError("BAD_STATE", `script ${name} was called wrongly: ${why}`);
}

/** Reads a reply as the declaration says; a reply of another shape is an error that names the script. */
export function decode(call: Call, reply: RedisReply): unknown {
  return read(call.script.name, call.reply, reply, "reply");
}

/** One part of a reply alone (for tests that pick it out of a reply by hand). */
export function decodePart(spec: ReplySpec, value: RedisReply | undefined): unknown {
  return read("part", spec, value, "part");
}

function read(name: string, spec: ReplySpec, value: RedisReply | undefined, at: string): unknown {
  switch (spec.kind) {
    case "value":
      return value;
    case "text":
      if (value === undefined || value === null || Array.isArray(value)) throw shape(name, at, "a string", value);
      return String(value);
    case "number": {
      const n = typeof value === "number" ? value : Number(value ?? NaN);
      if (Array.isArray(value) || Number.isNaN(n)) throw shape(name, at, "a number", value);
      return n;
    }
    case "flag":
      return read(name, number, value, at) === 1;
    case "tuple":
      return readTuple(name, spec.fields, arrayAt(name, at, value), at);
    case "variants": {
      const items = arrayAt(name, at, value);
      const tag = String(items[0]);
      const fields = Object.hasOwn(spec.cases, tag) ? spec.cases[tag] : undefined;
      if (!fields) throw shape(name, at, `one of ${Object.keys(spec.cases).join(", ")}`, value);
      return { kind: tag, ...readTuple(name, fields, items.slice(1), `${at}.${tag}`) };
    }
    case "digits": {
      if (typeof value === "string") {
        const out = new Array<number>(value.length);
        for (let i = 0; i < value.length; i++) {
          const d = value.charCodeAt(i) - 48;
          if (d < 0 || d > 9) throw shape(name, at, "digits", value);
          out[i] = d;
        }
        return out;
      }
      return read(name, { kind: "list", item: number }, value, at);
    }
    case "texts": {
      // One string: the texts joined (a list of none is sent as an empty array, so a string holds one at least).
      if (typeof value === "string") {
        const out: TextsRead = value.split(JOIN_SEPARATOR);
        if (value.includes(REPLACED)) out.replaced = true;
        return out;
      }
      const { texts, values } = readTextsOrChunks(name, arrayAt(name, at, value), at);
      // A joined value (a chunk) is checked once; a list of texts text by text.
      const out: TextsRead = texts;
      if (values.some((t) => t.includes(REPLACED))) out.replaced = true;
      return out;
    }
    case "list": {
      const items = arrayAt(name, at, value);
      // A list of texts (a fetch's jobs) is read with no path made per item: only an error names one
      // (bench/client-instructions.ts counts the difference).
      if (spec.item.kind === "text") return readTexts(name, items, at);
      if (spec.item.kind === "number") {
        // As texts: a number item (a workflow call's committed flags) makes no path unless it is wrong.
        const out = new Array<number>(items.length);
        for (let i = 0; i < items.length; i++) {
          const item = items[i];
          out[i] =
            typeof item === "number" && !Number.isNaN(item)
              ? item
              : (read(name, number, item, `${at}[${i}]`) as number);
        }
        return out;
      }
      return items.map((item, i) => read(name, spec.item, item, `${at}[${i}]`));
    }
    case "groups": {
      const items = arrayAt(name, at, value);
      const fields = fieldsOf(spec.fields);
      if (items.length % fields.length !== 0) throw shape(name, at, `groups of ${fields.length}`, value);
      const out: Record<string, unknown>[] = [];
      for (let g = 0; g < items.length; g += fields.length) {
        const one: Record<string, unknown> = {};
        for (let i = 0; i < fields.length; i++) {
          const field = fields[i]![0];
          const s = fields[i]![1];
          const item = items[g + i];
          // As in a tuple: a text that is a string is itself, with no path made for it.
          one[field] =
            s.kind === "text" && typeof item === "string"
              ? item
              : read(name, s, item, `${at}[${g / fields.length}].${field}`);
        }
        out.push(one);
      }
      return out;
    }
    case "optional":
      if (value === undefined || value === null) return undefined;
      if (spec.item.kind === "tuple" && Array.isArray(value) && value.length === 0) return undefined;
      return read(name, spec.item, value, at);
  }
}

/** An array of texts, or one array of chunks (each some texts joined by JOIN_SEPARATOR), in order. */
/** `texts`: the texts in order; `values`: the strings the reply held (the chunks, or the texts themselves). */
function readTextsOrChunks(name: string, items: RedisReply[], at: string): { texts: string[]; values: string[] } {
  const chunks = items.length === 1 ? items[0] : undefined;
  if (!Array.isArray(chunks)) {
    const texts = readTexts(name, items, at);
    return { texts, values: texts };
  }
  // Each chunk split natively and the arrays joined natively: no step of JavaScript a text.
  const values = readTexts(name, chunks, `${at}[0]`);
  if (values.length === 0) return { texts: values, values };
  let texts = values[0]!.split(JOIN_SEPARATOR);
  for (let i = 1; i < values.length; i++) texts = texts.concat(values[i]!.split(JOIN_SEPARATOR));
  return { texts, values };
}

/** An array of texts, with no path made per item: only an error names one. */
function readTexts(name: string, items: RedisReply[], at: string): string[] {
  const out = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === undefined || item === null || Array.isArray(item)) throw shape(name, `${at}[${i}]`, "a string", item);
    out[i] = typeof item === "string" ? item : String(item);
  }
  return out;
}

function readTuple(name: string, fields: ReplyFields, items: RedisReply[], at: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const list = fieldsOf(fields);
  for (let i = 0; i < list.length; i++) {
    const field = list[i]![0];
    const s = list[i]![1];
    const item = items[i];
    // A text field that is a string is itself: no path made for it (a path only names an error).
    const value = s.kind === "text" && typeof item === "string" ? item : read(name, s, item, `${at}.${field}`);
    if (value !== undefined) out[field] = value;
  }
  return out;
}

function arrayAt(name: string, at: string, value: RedisReply | undefined): RedisReply[] {
  if (!Array.isArray(value)) throw shape(name, at, "an array", value);
  return value;
}

function shape(name: string, at: string, wanted: string, got: RedisReply | undefined): TickqError {
  return new TickqError(
    "REDIS",
    `Unexpected reply from ${name}: ${at} should be ${wanted}, got ${JSON.stringify(got)?.slice(0, 200)}`,
  );
}
