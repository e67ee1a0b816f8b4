// A stored text shaped like a name ("~" + 40 hex digits, find-as-read.lua's as_read.is_name) is itself named
// by its own SHA-1: a bulk move takes it, and a bad-byte job whose name is that very text, each once.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const SCORE = "1900000000.5";

describe.each(adapterCases)("bulk moves of name-shaped jobs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "admin-name-shaped");

  it("deleteAll takes a job whose text is '~' + 40 hex and the bad-byte job that text names, both once", async () => {
    const tq = h.make({ x: () => {} });
    const bad = Buffer.concat([
      Buffer.from(`{"class":"x","args":["a`),
      Buffer.from("ff", "hex"),
      Buffer.from(`"],"jid":"b1"}`),
    ]);
    const asRead = bad.toString("utf8");
    const shaped = Buffer.from(`~${createHash("sha1").update(asRead, "utf8").digest("hex")}`);
    await h.redis.zadd(`${h.prefix}dead`, SCORE, shaped, SCORE, bad);
    expect(await tq.jobs.deleteAll("dead")).toBe(2);
    expect(await h.redis.zcard(`${h.prefix}dead`)).toBe(0);
  });

  it("retryAll moves two bad-byte jobs that read the same at one score, each once, each keeping its own bytes", async () => {
    const tq = h.make({ x: () => {} });
    const job = (bad: string) =>
      Buffer.concat([
        Buffer.from(`{"class":"x","args":["a`),
        Buffer.from(bad, "hex"),
        Buffer.from(`"],"jid":"same","queue":"default","retry_count":2}`),
      ]);
    await h.redis.zadd(`${h.prefix}dead`, SCORE, job("ff"), SCORE, job("fe"));
    expect(await tq.jobs.retryAll("dead")).toBe(2);
    expect(await h.redis.zcard(`${h.prefix}dead`)).toBe(0);
    const pushed = await h.redis.lrangeBuffer(`${h.prefix}queue:default`, "0", "-1");
    expect(pushed).toHaveLength(2);
    const badByte = (b: Buffer) => b[b.indexOf('["a') + 3];
    expect(pushed.map(badByte).sort()).toEqual([0xfe, 0xff]);
  });
});
