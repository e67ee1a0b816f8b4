// A workflow's types: `start` takes the input `run` declares, and an
// onFailure written without annotations, `(input, failure, step) => …`,
// takes that input too when the definition is written with defineWorkflow
// (`run` before `onFailure`: TypeScript infers an object's members in order).
// Inline in createTickq's `workflows`, TypeScript cannot infer it from the
// sibling `run` (microsoft/TypeScript#53018): the guide says to annotate it
// there; the @ts-expect-error below fails once a TypeScript release can, so
// the guide gets updated. Compile-time checks: `npm run typecheck` covers
// test files; expectTypeOf does nothing at run time.
import { describe, expect, expectTypeOf, it } from "vitest";
import { createTickq, defineWorkflow, type RedisAdapter, type WorkflowFailure } from "../../src/index.js";

// Never called: createTickq sends nothing until it is used.
const unused = () => Promise.reject(new Error("not called in a type test"));
const redis: RedisAdapter = { evalsha: unused, eval: unused };

describe("a workflow's types", () => {
  it("defineWorkflow: onFailure's input, failure and step are inferred, and start takes run's input", () => {
    const onboard = defineWorkflow({
      retry: 2,
      run: async (input: { userId: string }, step) => step.run("load", () => input.userId.length),
      onFailure: (input, failure, step) => {
        expectTypeOf(input).toEqualTypeOf<{ userId: string }>();
        expectTypeOf(failure).toEqualTypeOf<WorkflowFailure>();
        expectTypeOf(step).toEqualTypeOf<string | undefined>();
        return input.userId;
      },
    });
    const tq = createTickq({ redis, jobs: {}, workflows: { onboard, plain: { run: async (n: number) => n } } });
    const start = () => tq.workflows.start("onboard", { userId: "42" });
    expectTypeOf(start).returns.toEqualTypeOf<Promise<string>>();
    // @ts-expect-error start is typed by run's input
    const wrong = () => tq.workflows.start("onboard", { userId: 42 });
    // @ts-expect-error plain takes a number
    const wrongPlain = () => tq.workflows.start("plain", "1");
    expect([typeof wrong, typeof wrongPlain]).toEqual(["function", "function"]);
    expect(onboard.onFailure?.({ userId: "7" }, { name: "Error", message: "no" }, undefined)).toBe("7");
  });

  it("defineWorkflow written inside createTickq's workflows infers the same (run first: TypeScript infers left to right)", () => {
    const seen: string[] = [];
    const tq = createTickq({
      redis,
      jobs: {},
      workflows: {
        onboard: defineWorkflow({
          run: async (input: { userId: string }, step) => step.run("load", () => input.userId),
          onFailure: (input, failure, step) => {
            expectTypeOf(input).toEqualTypeOf<{ userId: string }>();
            seen.push(`${input.userId} ${failure.message} ${step}`);
          },
        }),
      },
    });
    // @ts-expect-error start is typed by run's input
    const wrong = () => tq.workflows.start("onboard", { user: "42" });
    expect(typeof wrong).toBe("function");
  });

  it("inline, an annotated onFailure keeps run's input; an unannotated one cannot be inferred there", () => {
    const tq = createTickq({
      redis,
      jobs: {},
      workflows: {
        onboard: {
          run: async (input: { userId: string }, step) => step.run("load", () => input.userId),
          onFailure: (input: { userId: string }, failure, step) => {
            expectTypeOf(failure).toEqualTypeOf<WorkflowFailure>();
            expectTypeOf(step).toEqualTypeOf<string | undefined>();
          },
        },
      },
    });
    const start = () => tq.workflows.start("onboard", { userId: "42" });
    expectTypeOf(start).returns.toEqualTypeOf<Promise<string>>();
    const inline = () =>
      createTickq({
        redis,
        jobs: {},
        workflows: {
          onboard: {
            run: async (input: { userId: string }, step) => step.run("load", () => input.userId),
            // @ts-expect-error inline, the input of an unannotated onFailure is not inferred (TypeScript#53018)
            onFailure: (input) => input.userId,
          },
        },
      });
    expect(typeof inline).toBe("function");
  });
});
