// A declaration written as the signature lines a .lua header carries:
//   KEYS: ticks lease process?keys(heartbeat work workers)
//   ARGV: prefix tickId fetch(batch queues[] picks[]) ordered?(names[] …)
//   Returns: (nowMs fetched[queue jobs[] counts[…]] due?(…))
// name(a b): a group or tuple; name[]: a counted section (ARGV) or an array
// (reply), name[](a b) of groups; name[a b]: a flat array of repeated groups;
// name[](a b)&t?(entries[](c d) e f): a counted section with an optional
// trailer t, whose entries' count and fields e f ride in the section's count
// value (space-separated) and whose entries follow the items; &t?m(…): the
// entries' count goes marked "m…"; perItem[](…) inside: entries after the
// counted ones, one per item; entries[]+(…): the entries packed (as name[]+(a b)
// below); several &t?(…): trailers in that order;
// name?: may be absent (ARGV: when ARGV goes on; reply: a missing trailing
// field); name?keys: present exactly when the optional KEYS are given.
// name[]+: texts that may come joined (ARGV: "j<count>" then one value;
// reply: one string), by "\30" (define.ts JOIN_SEPARATOR); name[]+(a b): a
// counted section of groups whose values may come joined ("j<values>" then
// one value: define.ts `packed`); name[]#: numbers 0–9 that may come as one
// string of digits (reply: define.ts `digits`).
import type { ArgSpec, Call, Fields, KeyFields, ReplyFields, ReplySpec, Trailer } from "./define.js";

export interface Signature {
  keys: string;
  argv: string;
  returns: string;
}

export function signatureOf(call: Call): Signature {
  return {
    keys: keysOf(call.keys),
    argv: ["prefix", ...Object.entries(call.args).map(([n, s]) => arg(n, s))].join(" "),
    returns: reply("", call.reply),
  };
}

function keysOf(keys: KeyFields): string {
  return Object.entries(keys)
    .map(([name, spec]) => (spec.kind === "key" ? name : `${name}?keys(${spec.names.join(" ")})`))
    .join(" ");
}

function argFields(fields: Fields): string {
  return Object.entries(fields)
    .map(([n, s]) => arg(n, s))
    .join(" ");
}

function arg(name: string, spec: ArgSpec): string {
  switch (spec.kind) {
    case "group":
      return `${name}(${argFields(spec.fields)})`;
    case "counted":
      return arg(`${name}[]`, spec.item);
    case "optional":
      return arg(`${name}?${spec.when === "keys" ? "keys" : ""}`, spec.item);
    case "trailed":
      return `${arg(`${name}[]`, spec.item)}${spec.trailers.map(trailerOf).join("")}`;
    case "joined":
      return `${name}[]+`;
    case "packed":
      return arg(`${name}[]+`, spec.item);
    default:
      return name;
  }
}

function trailerOf(t: Trailer): string {
  const perItem = t.perItem ? ` ${arg("perItem[]", t.perItem)}` : "";
  return `&${t.name}?${t.tag ?? ""}(${arg(t.packed ? "entries[]+" : "entries[]", t.entries)} ${argFields(t.fields)}${perItem})`;
}

function replyFields(fields: ReplyFields): string {
  return Object.entries(fields)
    .map(([n, s]) => reply(n, s))
    .join(" ");
}

function reply(name: string, spec: ReplySpec): string {
  switch (spec.kind) {
    case "tuple":
      return `${name}(${replyFields(spec.fields)})`;
    case "list":
      return reply(`${name}[]`, spec.item);
    case "texts":
      return `${name}[]+`;
    case "digits":
      return `${name}[]#`;
    case "groups":
      return `${name}[${replyFields(spec.fields)}]`;
    case "optional":
      return reply(`${name}?`, spec.item);
    case "variants":
      return Object.entries(spec.cases)
        .map(([tag, fields]) => (Object.keys(fields).length > 0 ? `${tag}(${replyFields(fields)})` : tag))
        .join(" | ");
    default:
      return name || spec.kind;
  }
}
