// enqueueBulk checks each job's args against its own handler, as enqueue
// does (compile-time: `npm run typecheck` covers the test files).
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe("enqueueBulk's types", () => {
  const h = useHarness(adapterCases[0]!, "bulk-types");

  it("accepts each job with its own args and refuses another job's", async () => {
    const tq = h.make({ mail: (_args: [string]) => {}, resize: (_args: [string, number]) => {}, anything: () => {} });
    const jids = await tq.enqueueBulk([
      { name: "mail", args: ["a@b.c"] },
      { name: "resize", args: ["https://img", 200], delayMs: 1_000 },
      { name: "anything", args: [1, "two"] },
    ]);
    expect(jids).toHaveLength(3);
    const wrong = () =>
      tq.enqueueBulk([
        // @ts-expect-error resize takes [string, number]
        { name: "resize", args: ["https://img"] },
      ]);
    const swapped = () =>
      tq.enqueueBulk([
        { name: "mail", args: ["a@b.c"] },
        // @ts-expect-error mail's args are [string]
        { name: "mail", args: [200] },
      ]);
    // @ts-expect-error an unknown name
    const unknown = () => tq.enqueueBulk([{ name: "nope", args: [] }]);
    expect([wrong, swapped, unknown].every((f) => typeof f === "function")).toBe(true);
  });
});
