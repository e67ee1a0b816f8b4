// A thrown value that is not an Error keeps what it says: `throw { code: 42,
// reason: "quota" }` is recorded as its type and its JSON, not as
// "[object Object]", the same in the dead set, jobs.find, jobs.result,
// enqueueAndWait's error and a workflow run's error. The JSON is bounded
// (long strings cut, a cycle written once), and strings and undefined are
// recorded as before.
import { expect, it } from "vitest";
import { JobFailedError } from "../../../src/index.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const QUOTA = { code: 42, reason: "quota" };
const QUOTA_JSON = '{"code":42,"reason":"quota"}';

describeOverAdapters(adapterCases, "thrown non-Errors over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "thrown");

  it("records a thrown object as its type and JSON in the dead set, jobs.find and jobs.result", async () => {
    const tq = h.make({
      quota: {
        retry: false,
        perform: () => {
          throw QUOTA;
        },
      },
    });
    const jid = await tq.enqueue("quota", []);
    await tq.tick({ budgetMs: 3_000 });
    const [raw] = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
    expect(JSON.parse(raw!)).toMatchObject({ error_class: "object", error_message: QUOTA_JSON });
    expect((await tq.jobs.find(jid))?.job).toMatchObject({ error_class: "object", error_message: QUOTA_JSON });
    expect(await tq.jobs.result(jid)).toMatchObject({ state: "dead", error: { class: "object", message: QUOTA_JSON } });
  });

  it("gives enqueueAndWait the same error", async () => {
    const tq = h.make({
      quota: {
        retry: false,
        perform: () => {
          throw QUOTA;
        },
      },
    });
    const error = await tq.enqueueAndWait("quota", [], { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect(error).toMatchObject({ state: "dead", error: { class: "object", message: QUOTA_JSON } });
    expect((error as Error).message).toContain(`object: ${QUOTA_JSON}`);
  });

  it("bounds the JSON: long strings cut, a cycle and a BigInt written, an array and a number as JSON", async () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const thrown: Record<string, unknown> = {
      big: { text: "x".repeat(1_000_000) },
      cyclic,
      bigint: { n: 10n },
      array: [1, "two", null],
      number: 42,
    };
    const tq = h.make(
      Object.fromEntries(
        Object.entries(thrown).map(([name, value]) => [
          name,
          {
            retry: false,
            perform: () => {
              throw value;
            },
          },
        ]),
      ),
    );
    await tq.enqueueBulk(Object.keys(thrown).map((name) => ({ name, args: [] })));
    await tq.tick({ budgetMs: 3_000 });
    const dead = (await h.redis.zrange(`${h.prefix}dead`, "0", "-1")).map(
      (raw) => JSON.parse(raw) as { class: string; error_class: string; error_message: string },
    );
    const byName = Object.fromEntries(dead.map((job) => [job.class, job]));
    expect(byName.big!.error_class).toBe("object");
    expect(byName.big!.error_message.length).toBeLessThanOrEqual(10_000);
    expect(byName.big!.error_message).toMatch(/^\{"text":"xxxx/);
    expect(byName.cyclic).toMatchObject({ error_class: "object", error_message: '{"a":1,"self":"[seen]"}' });
    expect(byName.bigint).toMatchObject({ error_class: "object", error_message: '{"n":"10"}' });
    expect(byName.array).toMatchObject({ error_class: "object", error_message: '[1,"two",null]' });
    expect(byName.number).toMatchObject({ error_class: "number", error_message: "42" });
  });

  it("records a thrown string and undefined as before", async () => {
    const tq = h.make({
      text: {
        retry: false,
        perform: () => {
          throw "plain string";
        },
      },
      nothing: {
        retry: false,
        perform: () => {
          throw undefined;
        },
      },
    });
    await tq.enqueueBulk([
      { name: "text", args: [] },
      { name: "nothing", args: [] },
    ]);
    await tq.tick({ budgetMs: 3_000 });
    const dead = (await h.redis.zrange(`${h.prefix}dead`, "0", "-1")).map(
      (raw) => JSON.parse(raw) as { class: string },
    );
    const byName = Object.fromEntries(dead.map((job) => [job.class, job]));
    expect(byName.text).toMatchObject({ error_class: "string", error_message: "plain string" });
    expect(byName.nothing).toMatchObject({ error_class: "undefined", error_message: "undefined" });
  });

  it("records a workflow step's thrown object as its type and JSON", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          charge: {
            retry: 0,
            run: async (_input: null, step) => {
              await step.run(
                "pay",
                () => {
                  throw QUOTA;
                },
                { retry: 0 },
              );
            },
          },
        },
      },
    );
    const id = await tq.workflows.start("charge", null);
    for (let k = 0; k < 5 && (await tq.workflows.get(id))?.status !== "failed"; k++) await tq.tick({ budgetMs: 1_000 });
    const run = await tq.workflows.get(id);
    expect(run?.status).toBe("failed");
    expect(run?.error).toMatchObject({ name: "object", message: QUOTA_JSON, step: "pay" });
  });
});
