// A fetched job read with U+FFFD (its stored bytes may not be valid UTF-8) is marked once a group, from the
// reply value: joined in one string (a step's reply) or a list (begin's, or a group holding the separator).
// Only the jobs that hold U+FFFD are marked, and only they are named by "~" + the SHA-1 of their text.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodePart, JOIN_SEPARATOR } from "../../src/protocol/define.js";
import type { RedisReply } from "../../src/redis/types.js";
import { fetched } from "../../src/protocol/sections.js";
import { nameJobsByRef } from "../../src/tick/passes/ack-refs.js";
import { type FetchedGroups, readFetched } from "../../src/tick/passes/fetch.js";

const plain = '{"class":"x","args":["a"]}';
const read = '{"class":"x","args":["a\uFFFD"]}';
const large = `{"class":"x","args":["${"p".repeat(2_000)}"]}`;
const sha1 = (text: string) => createHash("sha1").update(text, "utf8").digest("hex");
const jobsOf = (reply: RedisReply[]) => readFetched(decodePart(fetched, reply) as FetchedGroups);

describe("fetched jobs read with U+FFFD", () => {
  it.each([
    ["joined in one value", (jobs: string[]) => jobs.join(JOIN_SEPARATOR)],
    ["a list", (jobs: string[]) => jobs],
  ])("are marked in a group %s, and named by the SHA-1 of their text as read", async (_, shaped) => {
    const jobs = jobsOf(["q1", shaped([plain, read, large]), [], 0, "q2", shaped([plain, large]), [], 3]);
    expect(jobs.map((j) => j.replaced)).toEqual([undefined, true, undefined, undefined, undefined]);
    await nameJobsByRef(jobs);
    expect(jobs.map((j) => j.ref)).toEqual([
      undefined,
      `~${sha1(read)}`,
      `#${sha1(large)}`,
      undefined,
      `#${sha1(large)}`,
    ]);
  });

  it("leave a reply without U+FFFD unmarked", () => {
    const jobs = jobsOf(["q1", [plain, "é€😀"].join(JOIN_SEPARATOR), [], 0]);
    expect(jobs.map((j) => j.replaced)).toEqual([undefined, undefined]);
  });
});
