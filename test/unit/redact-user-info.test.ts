// A URL's password is masked whole, even one holding "@" (Redis and ioredis
// take the last "@" as the end of the user info): no part of it is left in
// an error or a log line.
import { describe, expect, it } from "vitest";
import { redact, redactUrl } from "../../src/redact.js";

describe("masking a URL's user info in text", () => {
  it("masks a password holding @ up to the last @ before the host", () => {
    expect(redact(`url must be the REST URL, not "rediss://default:p@ss@w0rd@eu1.example.io:6379"`)).toBe(
      `url must be the REST URL, not "rediss://default:***@eu1.example.io:6379"`,
    );
    expect(redact("redis://:p@ss@127.0.0.1:6379/0 refused")).toBe("redis://:***@127.0.0.1:6379/0 refused");
  });

  it("stops at the URL's end: a later @ in the text is not taken for its user info", () => {
    expect(redact("redis://127.0.0.1:6379/0 and ops@example.com")).toBe("redis://127.0.0.1:6379/0 and ops@example.com");
    expect(redact("https://example.com/a@b")).toBe("https://example.com/a@b");
  });

  it("masks the user info of a URL written without its scheme, which a URL parser reads as a path", () => {
    expect(redactUrl("app:hunter2@127.0.0.1:6379")).toBe("***@127.0.0.1:6379");
    expect(redactUrl("127.0.0.1:6379")).toBe("127.0.0.1:6379");
    expect(redactUrl("/tmp/redis.sock")).toBe("/tmp/redis.sock");
  });
});
