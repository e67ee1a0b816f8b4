// What JSON cannot carry faithfully, found before it is written: the same
// check for a job's args, an ordered payload and a schedule's args.
// JSON.stringify turns NaN, Infinity, undefined and functions in an array
// into null, drops functions and symbols from objects, and a Date, Map or
// class instance into a string or `{}`: the handler would receive something
// other than what was enqueued. Sidekiq's strict_args refuses the same.
// An object property whose value is undefined is allowed: it is left out,
// and the handler reads it back as undefined.

/** Deeper than this, Redis' cjson refuses the job anyway. */
const MAX_DEPTH = 1_000;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `path` and one key more, as JavaScript would write it: `args[0]`, `args[0].email`, `args[0]["user id"]`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** A plain object of this realm or another (`Object.prototype` of a vm context), or one made with Object.create(null). */
function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

function kindOf(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? `a ${name}` : "an object with a prototype";
}

function scalarProblem(value: unknown, inArray: boolean): string | undefined {
  switch (typeof value) {
    case "number":
      return Number.isFinite(value)
        ? undefined
        : `${String(value)} (JSON has no ${String(value)}; it would arrive as null)`;
    case "undefined":
      return inArray ? "undefined (it would arrive as null; use null)" : undefined;
    case "function":
      return "a function (JSON cannot carry one)";
    case "symbol":
      return "a symbol (JSON cannot carry one)";
    case "bigint":
      return "a BigInt (JSON has no BigInt; pass it as a string)";
    default:
      return undefined;
  }
}

interface Found {
  problem: string;
  /** Keys from the problem up to the root, innermost first: the path is built only for a refusal. */
  keys: (string | number)[];
}

function walk(value: unknown, inArray: boolean, ancestors: object[]): Found | undefined {
  if (typeof value !== "object" || value === null) {
    const problem = scalarProblem(value, inArray);
    return problem === undefined ? undefined : { problem, keys: [] };
  }
  if (ancestors.includes(value)) return { problem: "a cycle (it refers to an object that holds it)", keys: [] };
  if (ancestors.length >= MAX_DEPTH) return { problem: `nests deeper than ${MAX_DEPTH} levels`, keys: [] };
  if (!Array.isArray(value) && !isPlain(value)) {
    const hint = value instanceof Date ? "; pass date.toISOString() or its epoch ms" : "; pass a plain object or array";
    return { problem: `${kindOf(value)} (JSON carries plain objects and arrays only${hint})`, keys: [] };
  }
  ancestors.push(value);
  let found: Found | undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      found = walk(value[i], true, ancestors);
      if (found) {
        found.keys.push(i);
        break;
      }
    }
  } else {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      found = walk((value as Record<string, unknown>)[key], false, ancestors);
      if (found) {
        found.keys.push(key);
        break;
      }
    }
  }
  ancestors.pop();
  return found;
}

/**
 * Where `value` holds something JSON would not carry as it is, and what:
 * `args[1].at: a Date (…)`; undefined when it would arrive intact.
 * `root` names the value in the answer ("args", "payload").
 */
export function unfaithfulJson(value: unknown, root: string): string | undefined {
  const found = walk(value, true, []);
  return found && `${found.keys.reduceRight(childPath, root)}: ${found.problem}`;
}
