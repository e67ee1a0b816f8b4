// What a server's start-up throws carries no credential: a Redis URL's password and the secrets
// given are masked in its message and its stack; its class and code stay.
import { expect, it } from "vitest";
import { TickqError } from "../../src/errors.js";
import { maskedError } from "../../src/http/errors.js";

it("masks a URL's password and the given secrets in the message and the stack, keeping the code", () => {
  const error = new TickqError("REDIS", "cannot reach redis://default:hunter22@db:6379 with token tok-0123456789");
  const masked = maskedError(error, ["tok-0123456789"]) as TickqError;
  expect(masked).toBe(error);
  expect(masked.code).toBe("REDIS");
  expect(masked.message).toBe("cannot reach redis://default:***@db:6379 with token ***");
  expect(masked.stack).not.toMatch(/hunter22|tok-0123456789/);
});
