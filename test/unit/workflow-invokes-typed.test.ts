// step.invoke and step.invokeWorkflow typed by a registry: given the app's
// jobs and workflows (`WorkflowStep<{ jobs: typeof jobs; workflows: typeof
// workflows }>`, what `Register` supplies once the app augments it: see
// test/types/register/), a job name, its args, a child's name and input are
// checked and the results typed; without one, any name and args compile, and
// `invoke<T>` / `invokeWorkflow<T>` still name the result. Compile-time
// checks: `npm run typecheck` reads the @ts-expect-error lines; expectTypeOf
// does nothing at run time.
import { describe, expect, expectTypeOf, it } from "vitest";
import { defineWorkflow, type WorkflowStep } from "../../src/index.js";

const jobs = {
  sendEmail: async ([to, subject]: [string, string]) => ({ sent: `${to}: ${subject}` }),
  resize: { perform: async ([width]: [number]) => width * 2, queue: "images" },
  ping: async () => "pong",
};
const workflows = {
  charge: defineWorkflow({
    run: async (input: { cents: number }, step) =>
      step.run("charge", () => ({ id: `ch_${input.cents}`, at: new Date() })),
  }),
  noop: { run: async (_input: null) => undefined },
};
type App = { jobs: typeof jobs; workflows: typeof workflows };

// Never called: the types are the test.
const typed = (step: WorkflowStep<App>) => ({
  email: () => step.invoke("mail", "sendEmail", ["a@b.c", "hi"]),
  resize: () => step.invoke("resize", "resize", [640]),
  ping: () => step.invoke("ping", "ping", []),
  charge: () => step.invokeWorkflow("pay", "charge", { cents: 4200 }, { id: "charge:1" }),
  named: () => step.invoke<string>("mail", "sendEmail", ["a@b.c", "hi"]),
});

describe("typed invokes", () => {
  it("a registered job's args and result, and a registered child's input and output, are typed", () => {
    type Made = ReturnType<typeof typed>;
    expectTypeOf<ReturnType<Made["email"]>>().toEqualTypeOf<Promise<{ sent: string }>>();
    expectTypeOf<ReturnType<Made["resize"]>>().toEqualTypeOf<Promise<number>>();
    // Stored as JSON: a Date comes back as its ISO string.
    expectTypeOf<ReturnType<Made["charge"]>>().toEqualTypeOf<Promise<{ id: string; at: string }>>();
    expectTypeOf<ReturnType<Made["named"]>>().toEqualTypeOf<Promise<string>>();
  });

  it("a wrong job name, wrong args, a wrong child name or input fail to compile", () => {
    const wrong = (step: WorkflowStep<App>) => [
      // @ts-expect-error no job "sendMail"
      () => step.invoke("mail", "sendMail", ["a@b.c", "hi"]),
      // @ts-expect-error sendEmail takes [string, string]
      () => step.invoke("mail", "sendEmail", ["a@b.c"]),
      // @ts-expect-error resize takes [number]
      () => step.invoke("resize", "resize", ["640"]),
      // @ts-expect-error args are checked with a named result too
      () => step.invoke<string>("mail", "sendMail", ["a@b.c", "hi"]),
      // @ts-expect-error no workflow "charges"
      () => step.invokeWorkflow("pay", "charges", { cents: 1 }),
      // @ts-expect-error charge takes { cents: number }
      () => step.invokeWorkflow("pay", "charge", { cents: "1" }),
      // @ts-expect-error noop takes null
      () => step.invokeWorkflow("none", "noop", {}),
    ];
    expect(typeof wrong).toBe("function");
  });

  it("without a registry any name and args compile, the result unknown unless named, as before", () => {
    const loose = (step: WorkflowStep<object>) => ({
      any: () => step.invoke("x", "anyJob", [1, "two"]),
      named: () => step.invoke<number>("x", "anyJob", []),
      child: () => step.invokeWorkflow("c", "anyFlow", { whatever: true }),
      namedChild: () => step.invokeWorkflow<string>("c", "anyFlow", 1),
    });
    type Made = ReturnType<typeof loose>;
    expectTypeOf<ReturnType<Made["any"]>>().toEqualTypeOf<Promise<unknown>>();
    expectTypeOf<ReturnType<Made["named"]>>().toEqualTypeOf<Promise<number>>();
    expectTypeOf<ReturnType<Made["child"]>>().toEqualTypeOf<Promise<unknown>>();
    expectTypeOf<ReturnType<Made["namedChild"]>>().toEqualTypeOf<Promise<string>>();
    // The default registry is the app's Register, empty here: a loose step.
    const plain = (step: WorkflowStep) => step.invokeWorkflow<string>("c", "anyFlow", 1);
    expectTypeOf<ReturnType<typeof plain>>().toEqualTypeOf<Promise<string>>();
  });
});
