// defineJob: a job definition whose handler's args are inferred from its
// schema. Only a typing aid (it returns its argument): TypeScript cannot
// infer a handler's parameter from a sibling property inside the `jobs`
// record of createTickq, but it can inside one call.
import type { StandardSchemaV1 } from "../job/standard-schema.js";
import type { SchemaJobDefinition } from "../job/definition.js";

/**
 * @example
 * const signup = defineJob({
 *   schema: v.tuple([v.object({ email: v.pipe(v.string(), v.email()) })]),
 *   perform: async ([user], ctx) => sendWelcome(user.email),   // user: { email: string }
 * });
 * createTickq({ redis, jobs: { signup } });
 */
export function defineJob<S extends StandardSchemaV1>(definition: SchemaJobDefinition<S>): SchemaJobDefinition<S> {
  return definition;
}
