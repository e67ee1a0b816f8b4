// defineJob infers the handler's args from the schema's output, and enqueue
// takes the schema's input (compile-time: `npm run typecheck` covers the
// test files; the @ts-expect-error lines fail it if a wrong call compiles).
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineJob } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe("a schema's types", () => {
  const h = useHarness(adapterCases[0]!, "args-types");

  it("the handler sees the output (defaults filled), enqueue takes the input, a wrong call does not compile", async () => {
    const seen: string[] = [];
    const signup = defineJob({
      schema: v.tuple([v.object({ email: v.string(), plan: v.optional(v.picklist(["free", "pro"]), "free") })]),
      perform: ([user], ctx) => {
        const plan: "free" | "pro" = user.plan; // the output type: never undefined
        seen.push(`${user.email} ${plan} ${ctx.attempt}`);
      },
      queue: "mail",
    });
    const tq = h.make({ signup, plain: async (_args: [string]) => {} }, { queues: ["mail"] });
    await tq.enqueue("signup", [{ email: "a@b.c" }]); // the input type: plan may be left out
    await tq.enqueueBulk([{ name: "signup", args: [{ email: "d@e.f", plan: "pro" }] }]);
    // @ts-expect-error email must be a string
    await expect(tq.enqueue("signup", [{ email: 1 }])).rejects.toMatchObject({ code: "BAD_ARGS" });
    // @ts-expect-error plan must be free or pro
    await expect(tq.enqueueBulk([{ name: "signup", args: [{ email: "x", plan: "gold" }] }])).rejects.toMatchObject({
      code: "BAD_ARGS",
    });
    // @ts-expect-error plain takes [string] (it has no schema: only the types refuse this one)
    const uncalled = () => tq.enqueue("plain", [1]);
    void uncalled;
    expect(await tq.tick()).toMatchObject({ succeeded: 2 });
    expect(seen.sort()).toEqual(["a@b.c free 1", "d@e.f pro 1"]);
  });
});
