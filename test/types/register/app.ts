// The app side of typed invokes: an app registers its jobs and workflows by
// augmenting tickq's `Register` (as a user writes `declare module "tickq"`;
// here the module is the source entry), and every `step` of its workflows,
// defined with defineWorkflow or inline in createTickq, checks job names,
// args, child names and inputs, and types what they resolve to. Compiled on
// its own by `npm run typecheck` (test/types/tsconfig.json): the augmentation
// is global to a program, so the main program must not see it.
import { createTickq, defineWorkflow, type RedisAdapter } from "../../../src/index.js";

const jobs = {
  sendEmail: async ([to]: [string]) => ({ to }),
  resize: { perform: async ([width]: [number]) => width * 2 },
};

const charge = defineWorkflow({
  run: async (input: { cents: number }, step) => {
    const doubled: number = await step.invoke("resize", "resize", [input.cents]);
    // @ts-expect-error resize takes [number]
    await step.invoke("bad", "resize", [String(input.cents)]);
    // @ts-expect-error no job "sendMail"
    await step.invoke("bad2", "sendMail", ["a@b.c"]);
    return step.run("charge", () => `ch_${doubled}`);
  },
});

// A workflow whose output is its child's is annotated (`Promise<string>`): its type would otherwise
// depend on the registry it is part of, which TypeScript reports as circular.
const checkout = defineWorkflow({
  run: async (input: { order: string }, step): Promise<string> => {
    const paid = await step.invokeWorkflow("pay", "charge", { cents: 4200 });
    // @ts-expect-error charge takes { cents: number }
    await step.invokeWorkflow("bad", "charge", { cents: "4200" });
    // @ts-expect-error no workflow "charges"
    await step.invokeWorkflow("bad2", "charges", { cents: 1 });
    const mail = await step.invoke("mail", "sendEmail", [input.order]);
    return `${mail.to} ${paid}`;
  },
});

const workflows = { charge, checkout };

declare module "../../../src/index.js" {
  interface Register {
    jobs: typeof jobs;
    workflows: typeof workflows;
  }
}

const unused = () => Promise.reject(new Error("never called: a type test"));
const redis: RedisAdapter = { evalsha: unused, eval: unused };

export const tq = createTickq({
  redis,
  jobs,
  workflows: {
    ...workflows,
    inline: {
      run: async (input: { cents: number }, step) => {
        const out: string = await step.invokeWorkflow("child", "charge", input);
        // @ts-expect-error sendEmail takes [string]
        await step.invoke("mail", "sendEmail", [42]);
        return out;
      },
    },
  },
});
