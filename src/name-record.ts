// Objects keyed by names a user chooses (queues, job and workflow names)
// in what the API returns: `stats().queues` and the like. A name may be
// any Object.prototype member — `toString`, `hasOwnProperty`, `__proto__` —
// so such an object is never filled by assignment (`out["__proto__"] = 1`
// sets the prototype and loses the name) nor read with `in` or `obj[name]`
// (a missing `toString` reads as Object.prototype's function): build it
// from a Map or entries here and test membership with Object.hasOwn.
//
// What comes out stays a plain object, JSON-serialisable, every name an own
// property. An own `toString` or `valueOf` would make String() throw, so
// each carries a hidden Symbol.toPrimitive: String() and template literals
// still say "[object Object]", as for any object.

/** What String() says of any plain object. */
function asText(): string {
  return "[object Object]";
}

/** A plain object with each name of `entries` as an own, enumerable property (the last value of a name wins). */
export function nameRecord<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const record = Object.fromEntries(entries) as Record<string, T>;
  Object.defineProperty(record, Symbol.toPrimitive, { value: asText, enumerable: false });
  return record;
}

/** `record[name]` when `name` is its own property; never a value inherited from Object.prototype. */
export function ownValue<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}
