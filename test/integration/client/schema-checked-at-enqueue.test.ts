// A job's `schema` (any Standard Schema validator) is checked at every
// enqueue from code: enqueue, enqueueBulk and ordered enqueue. A failure is
// a BAD_ARGS TickqError naming the path that failed, and nothing of the
// call is written; the schema's output (its defaults, its transforms) is
// what the handler receives. valibot's schemas and a hand-written
// `~standard` object both work, sync or async.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineJob, TickqError, type StandardSchemaV1 } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { snapshot } from "../../helpers/snapshot.js";

const userArgs = v.tuple([
  v.object({ email: v.string("expected string"), plan: v.optional(v.picklist(["free", "pro"]), "free") }),
]);

/** A Standard Schema written by hand, no library: [count] where count is a whole number. */
const countArgs: StandardSchemaV1<[number], [number]> = {
  "~standard": {
    version: 1,
    vendor: "hand-written",
    validate(value) {
      const count = Array.isArray(value) ? value[0] : undefined;
      if (Number.isInteger(count)) return { value: [count as number] };
      return { issues: [{ message: "expected a whole number", path: [0] }] };
    },
  },
};

/** The same check, answered asynchronously (a validator that looks something up). */
const asyncCountArgs: StandardSchemaV1<[number], [number]> = {
  "~standard": { ...countArgs["~standard"], validate: async (value) => countArgs["~standard"].validate(value) },
};

async function rejection(call: Promise<unknown>): Promise<TickqError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TickqError);
  return error as TickqError;
}

describe.each(adapterCases)("a job's schema at enqueue over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "args-schema");
  const ran: unknown[] = [];
  const jobs = () => ({
    signup: defineJob({ schema: userArgs, perform: ([user]) => void ran.push(user) }),
    count: { schema: countArgs, perform: (args: [number]) => void ran.push(args[0]) },
    countLater: { schema: asyncCountArgs, perform: (args: [number]) => void ran.push(args[0]) },
    free: (args: unknown[]) => void ran.push(args),
  });

  it("refuses args a valibot schema refuses, naming the path, and writes nothing", async () => {
    const tq = h.make(jobs());
    const before = await snapshot(h.redis, h.prefix);
    const error = await rejection(tq.enqueue("signup", [{ email: 42 }] as unknown as [{ email: string }]));
    expect(error.code).toBe("BAD_ARGS");
    expect(error.message).toBe('Job "signup": args[0].email: expected string');
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });

  it("refuses swapped or missing args with a hand-written Standard Schema, sync or async", async () => {
    const tq = h.make(jobs());
    for (const name of ["count", "countLater"] as const) {
      const error = await rejection(tq.enqueue(name, ["7"] as unknown as [number]));
      expect(error).toMatchObject({ code: "BAD_ARGS", message: `Job "${name}": args[0]: expected a whole number` });
      await expect(tq.enqueue(name, [] as unknown as [number])).rejects.toThrow(/args\[0\]: expected a whole number/);
    }
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);
  });

  it("stores the schema's output: the handler receives its defaults", async () => {
    const tq = h.make(jobs());
    ran.length = 0;
    const jid = await tq.enqueue("signup", [{ email: "a@b.c" }]);
    const [raw] = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    expect(JSON.parse(raw!)).toMatchObject({ jid, args: [{ email: "a@b.c", plan: "free" }] });
    await tq.enqueue("countLater", [3]);
    expect(await tq.tick()).toMatchObject({ succeeded: 2, failed: 0 });
    expect(ran).toEqual(expect.arrayContaining([{ email: "a@b.c", plan: "free" }, 3]));
  });

  it("a bulk call with one refused job writes none of its jobs, whichever validator refuses", async () => {
    const tq = h.make(jobs());
    const before = await snapshot(h.redis, h.prefix);
    const call = tq.enqueueBulk([
      { name: "free", args: ["ok"] },
      { name: "signup", args: [{ email: "a@b.c" }] },
      { name: "countLater", args: [1.5] },
    ]);
    expect(await rejection(call)).toMatchObject({
      code: "BAD_ARGS",
      message: 'Job "countLater": args[0]: expected a whole number',
    });
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });

  it("an ordered job's schema checks each payload, and nothing of the call is written", async () => {
    const payload = v.object({ v: v.number("expected number") });
    const tq = h.make({}, { ordered: { idx: { schema: payload, perform: () => {} } } });
    const before = await snapshot(h.redis, h.prefix);
    const call = tq.enqueueOrderedBulk([
      { name: "idx", id: "a", payload: { v: 1 } },
      { name: "idx", id: "b", payload: { v: "2" } },
    ]);
    expect(await rejection(call)).toMatchObject({
      code: "BAD_ARGS",
      message: 'Ordered job "idx": payload.v: expected number',
    });
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
    await tq.enqueueOrdered("idx", { id: "a", payload: { v: 1 } });
    expect(await tq.stats()).toMatchObject({ ordered: { idx: { payloads: 1 } } });
  });

  it("a schema that throws is a BAD_ARGS naming the job, not a crash", async () => {
    const throwing: StandardSchemaV1 = {
      "~standard": {
        version: 1,
        vendor: "x",
        validate: () => {
          throw new Error("lookup down");
        },
      },
    };
    const tq = h.make({ job: { schema: throwing, perform: () => {} } });
    expect(await rejection(tq.enqueue("job", []))).toMatchObject({
      code: "BAD_ARGS",
      message: 'Job "job": its schema threw: lookup down',
    });
  });

  it("a schema whose output JSON would not carry is refused, as plain args are", async () => {
    const toDate = v.tuple([
      v.pipe(
        v.string(),
        v.transform((s) => new Date(s)),
      ),
    ]);
    const tq = h.make({ job: { schema: toDate, perform: () => {} } });
    const error = await rejection(tq.enqueue("job", ["2026-01-01"]));
    expect(error.message).toMatch(/^Job "job": args\[0\]: a Date \(JSON carries plain objects and arrays only/);
  });
});
