// lib/common/memory-state.lua reads INFO memory's numbers by a plain find of "\nNAME:" and the digits
// anchored after it (an unanchored pattern cost most of an empty tick's Lua work, issue 46). It must
// read what the unanchored patterns it replaced read, so a finish or a begin judges Redis full exactly
// as before: on this Redis' own INFO memory, and on texts with look-alike fields (maxmemory_human
// before maxmemory, a field at the very start or end, \r\n and \n line ends, absent fields).
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directRedis } from "../../helpers/redis.js";

const LIBRARY = readFileSync(new URL("../../../src/lua/lib/common/memory-state.lua", import.meta.url), "utf8");
/** memory_use of ARGV[1] (or of this Redis' INFO memory when absent), then what the old patterns read. */
const SCRIPT = `${LIBRARY}
local info = ARGV[1] or memory_info()
local used, max = memory_use(info)
local old_max = tonumber(string.match(info, '\\nmaxmemory:(%d+)')) or 0
local old_used = tonumber(string.match(info, '\\nused_memory:(%d+)')) or 0
local old_uncounted = tonumber(string.match(info, '\\nmem_not_counted_for_evict:(%d+)')) or 0
return { tostring(used), tostring(max), tostring(old_used - old_uncounted), tostring(old_max) }`;

const TEXTS = [
  "# Memory\r\nused_memory:1000\r\nmaxmemory_human:0B\r\nmaxmemory:2000\r\nmem_not_counted_for_evict:10\r\n",
  "used_memory:5\nmaxmemory:7",
  "# Memory\nused_memory_human:1K\nused_memory:1234\nmaxmemory_policy:noeviction\n",
  "# Memory\r\nused_memory:\r\nmaxmemory:x1\r\n",
  "",
  "\nmaxmemory:12\nused_memory:99999999999\nmem_not_counted_for_evict:3",
];

let redis: Redis;
beforeAll(() => {
  redis = directRedis();
});
afterAll(() => redis.disconnect());

describe("memory_use", () => {
  it("reads this Redis' INFO memory as the unanchored patterns did", async () => {
    const [used, max, oldUsed, oldMax] = (await redis.eval(SCRIPT, 0)) as string[];
    expect([used, max]).toEqual([oldUsed, oldMax]);
    expect(Number(used)).toBeGreaterThan(0);
  });

  it.each(TEXTS)("reads %j as the unanchored patterns did", async (text) => {
    const [used, max, oldUsed, oldMax] = (await redis.eval(SCRIPT, 0, text)) as string[];
    expect([used, max]).toEqual([oldUsed, oldMax]);
  });
});
