// tickq dev names a step's run by the id `tickq workflows show` takes, read back from the step's
// idempotency key, in both the current form and the one an earlier version wrote.
import { expect, it } from "vitest";
import { runIdOf } from "../../src/cli/dev/instrument.js";

it("reads the run id from a LENGTH:runId:step:name key, colons in the id included", () => {
  expect(runIdOf("24:ecbc99a1796be1388e468dde:step:welcome")).toBe("ecbc99a1796be1388e468dde");
  expect(runIdOf("13:order:42:step:step:x:step:pay")).toBe("order:42:step");
});

it("reads the run id from an earlier version's runId:step:name key", () => {
  expect(runIdOf("signup-7:step:welcome")).toBe("signup-7");
});
